//===----------------------------------------------------------------------===//
// mix.batch_norm and mix.layer_norm
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<16xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects input of rank >= 2, got rank 1}}
  %0 = mix.batch_norm %x, %p, %p, %p, %p : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  mix.return
}
