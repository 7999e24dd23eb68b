mix.network @n precision(f32) (%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'mix.mul' op operand shapes [2, 3] and [3, 3] are not broadcastable}}
  %0 = mix.mul %a, %b : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  mix.return
}
