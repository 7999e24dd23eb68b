mix.network @n precision(f32) (%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{'mix.block' op result #1 has type 'tensor<2x2xf32>', but its body yields 'tensor<4xf32>'}}
  %0:2 = mix.block @b (%a = %x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
    // expected-note @+1 {{yield is here}}
    mix.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  mix.return %0#0, %0#1 : tensor<4xf32>, tensor<2x2xf32>
}
