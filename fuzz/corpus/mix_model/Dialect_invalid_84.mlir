//===----------------------------------------------------------------------===//
// mix.matmul
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%a: tensor<8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'mix.matmul' op expects lhs of rank >= 2, got rank 1}}
  %0 = mix.matmul %a, %b : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  mix.return
}
