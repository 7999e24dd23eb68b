mix.network @nan_weight precision(int8) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, 0x7FC00000], [1.0, 1.0]]> : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op cannot quantize its weights: quantize_f32: input element 1 (nan) is not finite}}
  %y = mix.dense %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
