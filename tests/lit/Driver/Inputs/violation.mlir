// One policy error (batch_norm in f16) and one warning (a redundant f32
// override) under the default policy.
mix.network @net precision(f32) (%x: tensor<1x4x2x2xf32>, %t: tensor<2x4xf32>) -> (tensor<1x4x2x2xf32>, tensor<2x4xf32>) {
  %p = mix.weight dense<1.0> : tensor<4xf32>
  %y = mix.block @stage1 precision(f16) (%a = %x, %b = %p) : (tensor<1x4x2x2xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32> {
    %n = mix.batch_norm %a, %b, %b, %b, %b : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
    mix.yield %n : tensor<1x4x2x2xf32>
  }
  %r = mix.relu %t precision(f32) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return %y, %r : tensor<1x4x2x2xf32>, tensor<2x4xf32>
}
