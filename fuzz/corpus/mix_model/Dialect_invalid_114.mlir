mix.network @n precision(f32) (%x: tensor<f32>) {
  %p = mix.weight external "p" : tensor<1xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects input of rank >= 1, got rank 0}}
  %0 = mix.layer_norm %x, %p, %p : (tensor<f32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  mix.return
}
