mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not bf16}}
  %0 = mix.relu %x precision(activations = bf16<symmetric>) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
