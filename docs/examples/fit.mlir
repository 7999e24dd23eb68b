// A one-layer regression: the smallest network mix-differentiate takes.
mix.network @fit precision(f32) (%x: tensor<4x3xf32>, %t: tensor<4x2xf32>) -> tensor<f32> {
  %y = mix.block @head precision(f16) (%a = %x) : (tensor<4x3xf32>) -> tensor<4x2xf32> {
    %w = mix.weight external "head.weight" : tensor<3x2xf32>
    %d = mix.dense %a, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %s = mix.tanh %d : (tensor<4x2xf32>) -> tensor<4x2xf32>
    mix.yield %s : tensor<4x2xf32>
  }
  %l = mix.mse_loss %y, %t : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
