// Per-row activations (axis 0 of a [M, K] input): one dynamic scale and zero
// point per row, even with a calibration file.
mix.network @per_row precision(f32) (%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %y = mix.dense %x, %w precision(int8, activations = int8<symmetric, axis = 0>) : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  mix.return %y : tensor<3x2xf32>
}
