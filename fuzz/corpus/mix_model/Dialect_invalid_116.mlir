mix.network @n precision(f32) (%x: tensor<2x5x64xf32>) {
  %g = mix.weight external "g" : tensor<64xf32>
  // expected-note @+1 {{beta defined here}}
  %b = mix.weight external "b" : tensor<5x64xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects beta of shape [64] (last dimension), got [5, 64]}}
  %0 = mix.layer_norm %x, %g, %b : (tensor<2x5x64xf32>, tensor<64xf32>, tensor<5x64xf32>) -> tensor<2x5x64xf32>
  mix.return
}
