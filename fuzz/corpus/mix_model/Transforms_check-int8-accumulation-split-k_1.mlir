// A layer that fits is left alone.
mix.network @sym_ok precision(int8) (%x: tensor<1x133144xf32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<0.5> : tensor<133144x1xf32>
  %d = mix.dense %x, %w : (tensor<1x133144xf32>, tensor<133144x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}
