mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error @+1 {{'mix.cast' op requires the same shape for all operands and results}}
  %0 = mix.cast %x : tensor<4xf32> to tensor<2x2xf16>
  mix.return %0 : tensor<2x2xf16>
}
