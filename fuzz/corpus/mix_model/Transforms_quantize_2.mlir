// matmul quantizes both activations; no weights.
mix.network @matmul precision(int8) (%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %c = mix.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  mix.return %c : tensor<2x4xf32>
}
