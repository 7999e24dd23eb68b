//===----------------------------------------------------------------------===//
// mix.conv2d
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4x8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4x3x3xf32>
  // expected-error @+1 {{'mix.conv2d' op expects input of rank 4, got rank 3 [4, 8, 8]}}
  %0 = mix.conv2d %x, %w : (tensor<4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<8x6x6xf32>
  mix.return
}
