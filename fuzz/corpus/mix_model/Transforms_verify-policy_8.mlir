mix.network @n precision(f32) (%x: tensor<1x2x4xf32>, %img: tensor<1x2x4x4xf32>) {
  %q = mix.weight external "q" : tensor<4x4xf32>
  %k = mix.weight external "k" : tensor<2x2x3x3xf32>
  %0 = mix.attention %x, %q, %q, %q, %q precision(int8) {num_heads = 2 : i64} : (tensor<1x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %1 = mix.conv2d %img, %k precision(int8<axis = 0>) : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  mix.return
}
