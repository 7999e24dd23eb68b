// conv2d splits whole input channels: 9 products per channel, 133144 / 9.
mix.network @conv precision(int8) (%x: tensor<1x14800x3x3xf32>) -> tensor<1x1x1x1xf32> {
  %w = mix.weight dense<0.5> : tensor<1x14800x3x3xf32>
  %c = mix.conv2d %x, %w : (tensor<1x14800x3x3xf32>, tensor<1x14800x3x3xf32>) -> tensor<1x1x1x1xf32>
  mix.return %c : tensor<1x1x1x1xf32>
}
