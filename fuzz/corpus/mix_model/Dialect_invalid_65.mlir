mix.network @n precision(f32) (%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // matmul multiplies two activations: it has no weights either.
  // expected-error @+1 {{'mix.matmul' op has no weights, but sets a weights precision (int8<asymmetric, axis = 1>)}}
  %0 = mix.matmul %a, %b precision(weights = int8<asymmetric, axis = 1>) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  mix.return
}
