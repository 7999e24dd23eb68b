mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op body argument #0 has type 'tensor<4xf16>', but is bound to a value of type 'tensor<4xf32>'}}
  "mix.block"(%x) ({
  ^bb0(%a: tensor<4xf16>):
    "mix.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  mix.return
}
