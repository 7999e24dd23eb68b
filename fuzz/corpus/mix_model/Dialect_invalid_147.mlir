//===----------------------------------------------------------------------===//
// mix.attention
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<10x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op expects input of rank 3, got rank 2 [10, 8]}}
  %0 = mix.attention %x, %w, %w, %w, %w {num_heads = 2 : i64} : (tensor<10x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<10x8xf32>
  mix.return
}
