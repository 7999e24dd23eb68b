mix.network @n precision(f32) (%x: tensor<1x4x8x4xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // Dilation 2 widens the 3-wide kernel to 5; padding 0 + 0 on the width.
  // expected-error @+1 {{'mix.conv2d' op window of extent 5 does not fit the width dimension (4 + padding 0)}}
  %0 = mix.conv2d %x, %w {dilations = array<i64: 1, 2>, padding = array<i64: 1, 0, 1, 0>} : (tensor<1x4x8x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x1xf32>
  mix.return
}
