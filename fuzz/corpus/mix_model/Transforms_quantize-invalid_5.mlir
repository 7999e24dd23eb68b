mix.network @conv_per_row precision(f32) (%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %w = mix.weight dense<1.0> : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mix.conv2d' op activations are quantized per tensor, or per row (axis 0) for the [M, K] input of a dense or the lhs of a matmul; cannot use int8<symmetric, axis = 0> for its input [1, 1, 4, 4]}}
  %y = mix.conv2d %x, %w precision(int8, activations = int8<symmetric, axis = 0>) : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  mix.return %y : tensor<1x1x3x3xf32>
}
