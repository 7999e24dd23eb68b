mix.network @n precision(f32) (%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'mix.matmul' op expects rhs of rank >= 2, got rank 1}}
  %0 = mix.matmul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  mix.return
}
