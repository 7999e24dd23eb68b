// A weight defined at network level and bound into an (isolated) block is
// quantized inside the block that uses it: the qdense never uses a value from
// outside its region (it did, and every tool failed on it). The network-level
// user gets its own copy, next to the float weight.
mix.network @n precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %y = mix.block @q (%a = %x, %k = %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
    %d = mix.dense %a, %k precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    mix.yield %d : tensor<1x2xf32>
  }
  %z = mix.dense %y, %w precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %z : tensor<1x2xf32>
}
