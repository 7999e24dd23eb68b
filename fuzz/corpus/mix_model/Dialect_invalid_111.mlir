mix.network @n precision(f32) (%x: tensor<1x16x4x4xf32>) {
  %p = mix.weight external "p" : tensor<16xf32>
  // expected-note @+1 {{variance defined here}}
  %v = mix.weight external "v" : tensor<17xf32>
  // expected-error @+1 {{'mix.batch_norm' op expects variance of shape [16] (channels), got [17]}}
  %0 = mix.batch_norm %x, %p, %p, %p, %v : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<17xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}
