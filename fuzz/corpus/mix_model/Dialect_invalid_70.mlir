mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op weights precision int8<asymmetric, axis = 4> quantizes along axis 4, but the weights tensor has rank 4}}
  %0 = mix.conv2d %x, %w precision(f16, weights = int8<asymmetric, axis = 4>) : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}
