mix.network @n precision(f32) (%x: tensor<16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects input of rank 4, got rank 3 [16, 8, 8]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<16x8x8xf32>) -> tensor<16x7x7xf32>
  mix.return
}
