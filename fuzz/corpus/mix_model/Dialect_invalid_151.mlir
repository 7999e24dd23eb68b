mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{wk defined here}}
  %k = mix.weight external "k" : tensor<4x8xf32>
  // expected-error @+1 {{'mix.attention' op expects wk of shape [8, 8], got [4, 8]}}
  %0 = mix.attention %x, %w, %k, %w, %w {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}
