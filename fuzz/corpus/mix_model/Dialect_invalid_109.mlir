mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-note @+1 {{bias defined here}}
  %b = mix.weight external "b" : tensor<1x16xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects bias of shape [16] (channels), got [1, 16]}}
  %0 = mix.batch_norm %x, %p, %b, %p, %p : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<1x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}
