mix.network @n precision(f32) (%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'mix.flatten' op result shape [6, 20] does not match the expected shape [2, 60]}}
  %0 = mix.flatten %x : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
  mix.return
}
