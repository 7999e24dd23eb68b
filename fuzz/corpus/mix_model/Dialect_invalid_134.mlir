mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects every 'kernel' value >= 1, got [0, 2]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 0, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x7x7xf32>
  mix.return
}
