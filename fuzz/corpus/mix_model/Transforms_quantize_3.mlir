// Float layers are untouched.
mix.network @float precision(f16) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<2x2xf32>
  %y = mix.dense %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
