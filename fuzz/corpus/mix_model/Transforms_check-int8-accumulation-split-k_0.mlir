// With split-k, a layer that could overflow is marked with the largest safe
// K instead of being rejected; mix-quantize carries it to the integer op.
mix.network @sym_big precision(int8) (%x: tensor<1x133145xf32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<0.5> : tensor<133145x1xf32>
  %d = mix.dense %x, %w : (tensor<1x133145xf32>, tensor<133145x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}
