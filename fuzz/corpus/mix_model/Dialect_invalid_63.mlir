mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op accumulator precision cannot be int8 (int8 products accumulate in i32)}}
  %0 = mix.dense %x, %w precision(int8, accumulator = int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}
