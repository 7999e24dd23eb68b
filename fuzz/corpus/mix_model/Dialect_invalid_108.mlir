mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-note @+1 {{scale defined here}}
  %s = mix.weight external "s" : tensor<4xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects scale of shape [16] (channels), got [4]}}
  %0 = mix.batch_norm %x, %s, %p, %p, %p : (tensor<1x16x4x4xf32>, tensor<4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}
