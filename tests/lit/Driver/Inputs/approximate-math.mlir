// f32 erf (exact gelu), tanh and exp: inline approximations on targets with
// a fused multiply-add, libm calls elsewhere.
mix.network @act precision(f32) (%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %g = mix.gelu %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %t = mix.tanh %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %e = mix.exp %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  mix.return %g, %t, %e : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}
