// Asymmetric weights: per output channel of a conv2d (axis 0).
//   channel 0: [0, 1, 2, 3] -> min' = 0, max' = 3: scale 3/255, zero point
//              round(-128 - 0) = -128; q = round(x * 85) - 128
mix.network @conv precision(f32) (%x: tensor<1x1x4x4xf32>) -> tensor<1x1x5x5xf32> {
  %w = mix.weight dense<[[[[0.0, 1.0], [2.0, 3.0]]]]> : tensor<1x1x2x2xf32>
  %y = mix.conv2d %x, %w precision(int8<asymmetric>) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32>
  mix.return %y : tensor<1x1x5x5xf32>
}
