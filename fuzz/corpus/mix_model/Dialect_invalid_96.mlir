mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects 'padding' to have 4 values, got 2}}
  %0 = mix.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  mix.return
}
