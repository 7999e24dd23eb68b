mix.network @n precision(f32) (%x: tensor<1x16x8x2xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op window of extent 3 does not fit the width dimension (2 + padding 0)}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 1, 3>} : (tensor<1x16x8x2xf32>) -> tensor<1x16x8x1xf32>
  mix.return
}
