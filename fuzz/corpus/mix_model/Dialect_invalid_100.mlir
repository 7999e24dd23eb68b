mix.network @n precision(f32) (%x: tensor<1x6x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x2x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op output channels (8) are not divisible by groups (3)}}
  %0 = mix.conv2d %x, %w {groups = 3 : i64} : (tensor<1x6x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}
