mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{wv defined here}}
  %v = mix.weight external "v" : tensor<8x8x1xf32>
  // expected-error @+1 {{'mix.attention' op expects wv of shape [8, 8], got [8, 8, 1]}}
  %0 = mix.attention %x, %w, %w, %v, %w {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8x1xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}
