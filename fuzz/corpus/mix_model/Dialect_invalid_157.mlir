mix.network @n precision(f32) (%l: tensor<4x10xf32>, %y: tensor<3xi64>) {
  // expected-error @+1 {{'mix.cross_entropy_loss' op has 4 rows of logits but 3 labels}}
  %0 = mix.cross_entropy_loss %l, %y : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<f32>
  mix.return
}
