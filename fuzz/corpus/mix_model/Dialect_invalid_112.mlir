mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects epsilon > 0}}
  %0 = mix.batch_norm %x, %p, %p, %p, %p {epsilon = 0.0 : f64} : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}
