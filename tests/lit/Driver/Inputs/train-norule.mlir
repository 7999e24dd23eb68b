// A network ending in a loss through a layer without a gradient rule.
mix.network @peak precision(f32) (%x: tensor<1x1x4x4xf32>, %t: tensor<1x1x4xf32>) -> tensor<f32> {
  %w = mix.weight external "k" : tensor<1x1x1x1xf32>
  %c = mix.conv2d %x, %w : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  %p = mix.reduce_max %c {axes = array<i64: 2>, keepdims = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4xf32>
  %l = mix.mse_loss %p, %t : (tensor<1x1x4xf32>, tensor<1x1x4xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
