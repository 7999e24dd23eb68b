mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight external "w" : tensor<8x4x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects weight of rank 4, got rank 3 [8, 4, 3]}}
  %0 = mix.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}
