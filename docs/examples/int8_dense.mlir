// An int8 dense layer with inline weights (docs/quantization.md).
mix.network @tiny precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %b = mix.weight dense<[0.5, -0.5]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
