mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<9x1x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op input channels (4) are not divisible by groups (3)}}
  %0 = mix.conv2d %x, %w {groups = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<9x1x3x3xf32>) -> tensor<1x9x6x6xf32>
  mix.return
}
