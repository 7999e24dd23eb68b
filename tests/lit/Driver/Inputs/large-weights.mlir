// 1,156,000,000 bytes of weights: more than the 1 GiB mixc keeps in the
// small code model (tests/lit/Driver/large-weights.test).
mix.network @big precision(f32) (%x: tensor<1x17000xf32>) -> tensor<1x17000xf32> {
  %w = mix.weight dense<0.5> : tensor<17000x17000xf32>
  %y = mix.dense %x, %w : (tensor<1x17000xf32>, tensor<17000x17000xf32>) -> tensor<1x17000xf32>
  mix.return %y : tensor<1x17000xf32>
}
