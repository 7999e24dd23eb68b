mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-note @+1 {{mean defined here}}
  %m = mix.weight external "m" : tensor<4xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects mean of shape [16] (channels), got [4]}}
  %0 = mix.batch_norm %x, %p, %p, %m, %p : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<4xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}
