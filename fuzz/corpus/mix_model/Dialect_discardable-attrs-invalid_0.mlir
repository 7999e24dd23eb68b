// The discardable attributes of the mix dialect (mix.k_chunk, mix.name) are
// declared and verified by the dialect; any other mix.* attribute is an error.

mix.network @k_chunk_type precision(f32) (%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{'mix.dense' op expects 'mix.k_chunk' to be an i64 integer, got "2"}}
  %y = mix.dense %x, %w precision(int8) {mix.k_chunk = "2"} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
