mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op weights precision cannot be i32 (i32 is only an accumulator precision)}}
  %0 = mix.dense %x, %w precision(weights = i32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}
