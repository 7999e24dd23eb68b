mix.network @n precision(f32) (%x: tensor<2x3x4x5xf32>) {
  // expected-error @+1 {{'mix.flatten' op start_dim -1 is out of range for rank 4}}
  %0 = mix.flatten %x {start_dim = -1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  mix.return
}
