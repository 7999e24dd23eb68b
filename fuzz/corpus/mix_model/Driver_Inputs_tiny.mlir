// A dense + relu layer with inline weights and an MSE loss (f32), and an f16
// block whose checked input cast can overflow.
mix.network @tiny precision(f32) (%image: tensor<2x4xf32>, %target: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<f32>) {
  %w = mix.weight dense<[[0.5, -1.0, 0.25], [1.0, 0.5, -0.5], [-0.25, 1.0, 1.0], [0.125, -0.5, 2.0]]> : tensor<4x3xf32>
  %b = mix.weight dense<[0.5, -1.0, 0.0]> : tensor<3xf32>
  %d = mix.dense %image, %w, %b : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %probs = mix.relu %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %loss = mix.mse_loss %probs, %target : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  mix.return %probs, %loss : tensor<2x3xf32>, tensor<f32>
}

mix.network @half precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = mix.block @h precision(f16) (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %r = mix.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    mix.yield %r : tensor<4xf32>
  }
  mix.return %h : tensor<4xf32>
}
