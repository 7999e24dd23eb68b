mix.network @n precision(f32) (%x: tensor<1x10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op embedding size 8 is not divisible by num_heads (3)}}
  %0 = mix.attention %x, %w, %w, %w, %w {num_heads = 3 : i64} : (tensor<1x10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x10x8xf32>
  mix.return
}
