mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight external "w" : tensor<8x4x1xf32>
  // expected-error @+1 {{'mix.dense' op expects weight of rank 2, got rank 3 [8, 4, 1]}}
  %0 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<8x4x1xf32>) -> tensor<2x4xf32>
  mix.return
}
