mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.relu' op result shape [40] differs from the input shape [4, 10]}}
  %0 = mix.relu %x : (tensor<4x10xf32>) -> tensor<40xf32>
  mix.return
}
