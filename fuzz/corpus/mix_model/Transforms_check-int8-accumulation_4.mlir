// Both asymmetric: 255 * 255 = 65025 per product; K = 33026 is one too many.
// expected-note @+1 {{int8 inherited from network @matmul_big}}
mix.network @matmul_big precision(int8<asymmetric>) (%a: tensor<1x33026xf32>, %b: tensor<33026x1xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{K = 33026 products of at most 255 x 255 sum to 2147515650 > 2147483647; at most 33025 products}}
  %c = mix.matmul %a, %b : (tensor<1x33026xf32>, tensor<33026x1xf32>) -> tensor<1x1xf32>
  mix.return %c : tensor<1x1xf32>
}
