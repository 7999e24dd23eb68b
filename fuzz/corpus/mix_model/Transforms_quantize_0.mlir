// Weights: symmetric per output channel (dense axis 1) by default.
//   column 0: max |w| = 1.0 -> scale 1/127, 0.25 * 127 = 31.75 -> 32
//   column 1: max |w| = 2.0 -> scale 2/127, -0.5 / (2/127) = -31.75 -> -32
// Activations: dynamic (no calibration file), checked.
// Per tensor: max |w| = 2.0 -> scale 2/127 for every column.
mix.network @dense precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %b = mix.weight dense<[0.5, -0.5]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
