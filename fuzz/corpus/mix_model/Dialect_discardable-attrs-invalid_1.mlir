mix.network @k_chunk_zero precision(f32) (%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{'mix.dense' op expects 'mix.k_chunk' >= 1, got 0}}
  %y = mix.dense %x, %w precision(int8) {mix.k_chunk = 0 : i64} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
