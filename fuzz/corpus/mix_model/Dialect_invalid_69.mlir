mix.network @n precision(f32) (%x: tensor<8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // ... and to the activations.
  // expected-error @+1 {{'mix.dense' op activations precision int8<symmetric, axis = 1> quantizes along axis 1, but the activations tensor has rank 1}}
  %0 = mix.dense %x, %w precision(int8<axis = 1>) : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  mix.return
}
