//===----------------------------------------------------------------------===//
// mix.embedding, mix.global_avg_pool, mix.max_pool2d
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%ids: tensor<2x16xi32>) {
  // expected-note @+1 {{table defined here}}
  %t = mix.weight external "t" : tensor<100xf32>
  // expected-error @+1 {{'mix.embedding' op expects table of rank 2, got rank 1 [100]}}
  %0 = mix.embedding %ids, %t : (tensor<2x16xi32>, tensor<100xf32>) -> tensor<2x16xf32>
  mix.return
}
