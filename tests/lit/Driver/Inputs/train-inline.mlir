// A network ending in a loss whose weight is inline: it trains, but the
// trained values would have no name to be exported under.
mix.network @fit precision(f32) (%x: tensor<4x3xf32>, %t: tensor<4x2xf32>) -> tensor<f32> {
  %w = mix.weight dense<0.5> : tensor<3x2xf32>
  %y = mix.dense %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %l = mix.mse_loss %y, %t : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
