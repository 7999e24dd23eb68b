mix.network @act_axis precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op activations are quantized per tensor, or per row (axis 0) for the [M, K] input of a dense or the lhs of a matmul; cannot use int8<symmetric, axis = 1> for its input [1, 2]}}
  %y = mix.dense %x, %w precision(int8, activations = int8<symmetric, axis = 1>) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
