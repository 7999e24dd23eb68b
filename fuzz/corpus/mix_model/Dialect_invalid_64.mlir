mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.relu' op has no weights, but sets a weights precision (f16)}}
  %0 = mix.relu %x precision(weights = f16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
