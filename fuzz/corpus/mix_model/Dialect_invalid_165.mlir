// 2^64 elements: the count itself overflows.
mix.network @overflowing precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.weight' op weight of type 'tensor<4294967296x4294967296xf32>' has more elements than 64 bits can count}}
  %w = mix.weight external "w" : tensor<4294967296x4294967296xf32>
  mix.return %x : tensor<1x4xf32>
}
