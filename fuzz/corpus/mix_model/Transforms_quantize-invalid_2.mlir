mix.network @axis precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op int8 weights are quantized per output channel (axis 1) or per tensor, not along axis 0}}
  %y = mix.dense %x, %w precision(int8, weights = int8<symmetric, axis = 0>) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
