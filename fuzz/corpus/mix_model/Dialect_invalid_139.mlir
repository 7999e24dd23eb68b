mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op padding [0, 0, 0, 2] must be smaller than the kernel [2, 2]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x9xf32>
  mix.return
}
