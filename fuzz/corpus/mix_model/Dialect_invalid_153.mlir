mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{wo defined here}}
  %o = mix.weight external "o" : tensor<16x16xf32>
  // expected-error @+1 {{'mix.attention' op expects wo of shape [8, 8], got [16, 16]}}
  %0 = mix.attention %x, %w, %w, %w, %o {num_heads = 2 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<16x16xf32>) -> tensor<1x10x8xf32>
  mix.return
}
