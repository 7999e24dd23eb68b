mix.network @n precision(f32) (%a: tensor<2x4x8xf32>, %b: tensor<3x8x3xf32>) {
  // expected-error @+1 {{'mix.matmul' op batch dimensions differ: [2] and [3]}}
  %0 = mix.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x3xf32>) -> tensor<2x4x3xf32>
  mix.return
}
