mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op has 0 result(s), but its body yields 1 value(s)}}
  mix.block (%a = %x) : (tensor<4xf32>) -> () {
    // expected-note @+1 {{yield is here}}
    mix.yield %a : tensor<4xf32>
  }
  mix.return
}
