// Resolution failures of mix-resolve-precision.
// The pass fails, so mix-opt exits with an error.

// An int8 axis inherited from the network that the weight tensor cannot have.
// expected-note @+1 {{precision inherited from network @n}}
mix.network @n precision(int8<axis = 2>) (%x: tensor<1x2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op inherits weights precision int8<symmetric, axis = 2> quantized along axis 2, but its weights tensor has rank 2}}
  %0 = mix.dense %x, %w : (tensor<1x2x8xf32>, tensor<8x4xf32>) -> tensor<1x2x4xf32>
  mix.return
}
