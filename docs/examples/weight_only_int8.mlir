// A dense layer with int8 weights in an f16 block (docs/quantization.md).
mix.network @wo precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %h = mix.block @half precision(f16) (%in = %x) : (tensor<1x2xf32>) -> tensor<1x2xf32> {
    %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
    %y = mix.dense %in, %w precision(weights = int8) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    mix.yield %y : tensor<1x2xf32>
  }
  mix.return %h : tensor<1x2xf32>
}
