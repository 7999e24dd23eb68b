mix.network @n precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-note @+1 {{bias defined here}}
  %b = mix.weight dense<0.0> : tensor<4xf32>
  // expected-error @+1 {{'mix.conv2d' op expects bias of shape [8] (output channels), got [4]}}
  %0 = mix.conv2d %x, %w, %b : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x8x6x6xf32>
  mix.return
}
