mix.network @n precision(f32) (%x: tensor<1x2x4xf32>) {
  %w = mix.weight external "w" : tensor<4x4xf32>
  // expected-error @+1 {{'mix.attention' op requires attribute 'num_heads'}}
  %0 = mix.attention %x, %w, %w, %w, %w : (tensor<1x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  mix.return
}
