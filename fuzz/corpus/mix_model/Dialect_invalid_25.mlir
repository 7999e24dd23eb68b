mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not f64}}
  %0 = mix.relu %x precision(f64<axis = 0>) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
