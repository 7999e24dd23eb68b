// Only warnings under the default policy (redundant overrides).
mix.network @warn precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = mix.block @same precision(f32) (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
    %r = mix.relu %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %r : tensor<2x4xf32>
  }
  %z = mix.gelu %y precision(f32) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return %z : tensor<2x4xf32>
}
