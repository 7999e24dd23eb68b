mix.network @n precision(f32) (%x: tensor<1x4x2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op window of extent 3 does not fit the height dimension (2 + padding 0)}}
  %0 = mix.conv2d %x, %w : (tensor<1x4x2x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x1x6xf32>
  mix.return
}
