// conv2d: K = C/groups * KH * KW = 2048 * 9 * 9 = 165888 > 133144.
mix.network @conv_big precision(f32) (%x: tensor<1x2048x9x9xf32>) -> tensor<1x1x1x1xf32> {
  %w = mix.weight external "w" : tensor<1x2048x9x9xf32>
  // expected-error @+1 {{K = 165888 products of at most 127 x 127}}
  %c = mix.conv2d %x, %w precision(int8) : (tensor<1x2048x9x9xf32>, tensor<1x2048x9x9xf32>) -> tensor<1x1x1x1xf32>
  mix.return %c : tensor<1x1x1x1xf32>
}
