// Two int8 dense layers: dynamic activation scales by default, static ones
// with --calibration=calibration.json.
mix.network @static precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %y = mix.block @head precision(int8) (%a = %x) : (tensor<1x2xf32>) -> tensor<1x2xf32> {
    %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
    %h = mix.dense %a, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %z = mix.dense %h, %w precision(activations = int8<asymmetric>) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    mix.yield %z : tensor<1x2xf32>
  }
  mix.return %y : tensor<1x2xf32>
}
