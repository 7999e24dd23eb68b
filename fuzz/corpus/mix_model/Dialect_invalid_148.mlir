mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op expects num_heads >= 1, got 0}}
  %0 = mix.attention %x, %w, %w, %w, %w {num_heads = 0 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}
