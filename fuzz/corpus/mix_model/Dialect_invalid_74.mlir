mix.network @n precision(f32) (%p: tensor<4xf32>) {
  // expected-error @+1 {{'mix.mse_loss' op result #0 must be 0D tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1xf32>'}}
  %0 = mix.mse_loss %p, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32>
  mix.return
}
