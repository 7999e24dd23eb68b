// Contractions loop over (m, k, n): n innermost (vectorizable), and every
// output still accumulates in k order.
mix.network @mlp precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<2x4xf32>) -> tensor<2x3xf32> {
    // Operands are rounded to f16 once, at the block's cast.
    // The cast is checked: an overflow to inf is reported at run time, with
    // the location of the layer that needed the conversion.
    // Weights are converted at compile time: the constant is already f16.
    %w = mix.weight dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.5, 2.5, 3.5]]> : tensor<4x3xf32>
    %b = mix.weight dense<[0.5, -0.5, 1.0]> : tensor<3xf32>
    // The dense contraction accumulates in f32 with fma (k is the reduction loop) on
    // f16 operands, then adds the bias and rounds once to f16.
    %d = mix.dense %a, %w, %b : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %r = mix.relu %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
    mix.yield %r : tensor<2x3xf32>
  }
  // Softmax in f32: max, exp, sum, divide.
  %s = mix.softmax %h : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return %s : tensor<2x3xf32>
}
