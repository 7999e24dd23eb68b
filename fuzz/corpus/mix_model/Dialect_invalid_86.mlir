mix.network @n precision(f32) (%a: tensor<2x4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{'mix.matmul' op operands have different ranks (3 and 2)}}
  %0 = mix.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x3xf32>) -> tensor<2x4x3xf32>
  mix.return
}
