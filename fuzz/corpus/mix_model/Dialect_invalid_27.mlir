mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{expected '='}}
  %0 = mix.relu %x precision(weights int8) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
