//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%l: tensor<40xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'mix.cross_entropy_loss' op expects logits of rank 2, got rank 1 [40]}}
  %0 = mix.cross_entropy_loss %l, %y : (tensor<40xf32>, tensor<4xi32>) -> tensor<f32>
  mix.return
}
