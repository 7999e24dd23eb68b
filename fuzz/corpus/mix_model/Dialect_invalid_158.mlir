mix.network @n precision(f32) (%p: tensor<4x3xf32>, %t: tensor<4x2xf32>) {
  // expected-error @+1 {{'mix.mse_loss' op prediction shape [4, 3] differs from the target shape [4, 2]}}
  %0 = mix.mse_loss %p, %t : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<f32>
  mix.return
}
