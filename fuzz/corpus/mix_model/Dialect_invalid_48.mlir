mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op body has 0 arguments, but the block binds 1 value(s)}}
  "mix.block"(%x) ({
    "mix.yield"() : () -> ()
  }) : (tensor<4xf32>) -> ()
  mix.return
}
