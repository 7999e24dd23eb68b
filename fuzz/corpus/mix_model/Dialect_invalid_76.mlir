mix.network @n precision(f32) (%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op requires attribute 'kernel'}}
  %0 = mix.max_pool2d %x : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  mix.return
}
