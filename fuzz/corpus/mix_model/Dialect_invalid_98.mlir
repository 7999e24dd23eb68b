mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects groups >= 1, got 0}}
  %0 = mix.conv2d %x, %w {groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}
