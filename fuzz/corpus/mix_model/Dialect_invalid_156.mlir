mix.network @n precision(f32) (%l: tensor<4x10xf32>, %y: tensor<4x1xi32>) {
  // expected-error @+1 {{'mix.cross_entropy_loss' op expects labels of rank 1, got rank 2 [4, 1]}}
  %0 = mix.cross_entropy_loss %l, %y : (tensor<4x10xf32>, tensor<4x1xi32>) -> tensor<f32>
  mix.return
}
