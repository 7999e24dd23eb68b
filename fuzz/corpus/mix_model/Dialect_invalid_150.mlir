mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{wq defined here}}
  %q = mix.weight external "q" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.attention' op expects wq of shape [8, 8], got [8, 4]}}
  %0 = mix.attention %x, %q, %w, %w, %w {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}
