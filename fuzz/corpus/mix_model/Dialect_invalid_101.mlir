mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight external "w" : tensor<8x3x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op channel mismatch: the input has 4 channels, but the weight expects 3 per group x 1 group(s)}}
  %0 = mix.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}
