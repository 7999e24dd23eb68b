mix.network @n precision(f32) (%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) {
  // expected-error @+1 {{'mix.matmul' op contraction dimensions differ: lhs has K = 8, rhs has K = 7}}
  %0 = mix.matmul %a, %b : (tensor<4x8xf32>, tensor<7x3xf32>) -> tensor<4x3xf32>
  mix.return
}
