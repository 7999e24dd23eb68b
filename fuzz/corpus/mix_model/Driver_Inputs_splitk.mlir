// An int8 dense layer whose i32 sums could overflow: K = 133145 products of
// at most 127 x 127. Rejected unless --split-k.
mix.network @wide precision(f32) (%x: tensor<1x133145xf32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<0.5> : tensor<133145x1xf32>
  %y = mix.dense %x, %w precision(int8) : (tensor<1x133145xf32>, tensor<133145x1xf32>) -> tensor<1x1xf32>
  mix.return %y : tensor<1x1xf32>
}
