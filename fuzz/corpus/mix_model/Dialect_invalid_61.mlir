mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.gelu' op activations precision cannot be i32 (i32 is only an accumulator precision)}}
  %0 = mix.gelu %x precision(activations = i32) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
