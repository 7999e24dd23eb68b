mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // A layer precision's axis applies to the weights ...
  // expected-error @+1 {{'mix.dense' op weights precision int8<symmetric, axis = 3> quantizes along axis 3, but the weights tensor has rank 2}}
  %0 = mix.dense %x, %w precision(int8<axis = 3>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}
