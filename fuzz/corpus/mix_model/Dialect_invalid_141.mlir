mix.network @n precision(f32) (%x: tensor<1x16x2x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op window of extent 4 does not fit the height dimension (2 + padding 1)}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 4, 1>, padding = array<i64: 1, 0, 0, 0>} : (tensor<1x16x2x8xf32>) -> tensor<1x16x1x8xf32>
  mix.return
}
