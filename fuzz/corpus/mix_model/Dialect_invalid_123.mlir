mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.gelu' op result shape [4, 1] differs from the input shape [4, 10]}}
  %0 = mix.gelu %x {approximate = true} : (tensor<4x10xf32>) -> tensor<4x1xf32>
  mix.return
}
