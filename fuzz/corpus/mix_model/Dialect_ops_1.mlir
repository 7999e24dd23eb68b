// The dialect's discardable attributes round-trip where they belong.
mix.network @discardable precision(f32) (%x: tensor<1x4xf32> {mix.name = "image"}, %w: tensor<4x2xf32>) -> (tensor<1x2xf32> {mix.name = "logits"}) {
  %y = mix.dense %x, %w precision(int8) {mix.k_chunk = 2 : i64} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
