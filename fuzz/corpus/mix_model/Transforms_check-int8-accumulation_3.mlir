mix.network @asym_big precision(f32) (%x: tensor<1x66312xf32>) -> tensor<1x1xf32> {
  %w = mix.weight external "w" : tensor<66312x1xf32>
  // expected-error @+1 {{K = 66312 products of at most 255 x 127 sum to 2147514120 > 2147483647; at most 66311 products}}
  %d = mix.dense %x, %w precision(int8, activations = int8<asymmetric>) : (tensor<1x66312xf32>, tensor<66312x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}
