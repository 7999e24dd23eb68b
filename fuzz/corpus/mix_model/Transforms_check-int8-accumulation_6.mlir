// int8 weights with float activations (weight-only quantization) accumulate
// in float: nothing to prove. The edge example's int8 convolutions are far
// below the bound.
mix.network @weight_only precision(f32) (%x: tensor<1x200000xf32>) -> tensor<1x1xf32> {
  %w = mix.weight external "w" : tensor<200000x1xf32>
  %d = mix.dense %x, %w precision(weights = int8) : (tensor<1x200000xf32>, tensor<200000x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}
