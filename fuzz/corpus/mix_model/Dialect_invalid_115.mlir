mix.network @n precision(f32) (%x: tensor<2x5x64xf32>) {
  %b = mix.weight external "b" : tensor<64xf32>
  // expected-note @+1 {{gamma defined here}}
  %g = mix.weight external "g" : tensor<5xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects gamma of shape [64] (last dimension), got [5]}}
  %0 = mix.layer_norm %x, %g, %b : (tensor<2x5x64xf32>, tensor<5xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  mix.return
}
