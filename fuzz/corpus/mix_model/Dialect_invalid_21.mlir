mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'output' precision given twice}}
  %0 = mix.relu %x precision(output = f16, output = f16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
