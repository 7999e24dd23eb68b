// Two blocks of dense 64 -> 256, gelu, dense 256 -> 64 and an mse loss; the
// first block is recomputed for its backward (docs/training.md, "Recompute").
mix.network @two precision(f32) (%x: tensor<32x64xf32>, %t: tensor<32x64xf32>) -> tensor<f32> {
  %a = mix.block @a (%i = %x) : (tensor<32x64xf32>) -> tensor<32x64xf32> attributes {mix.recompute} {
    %w1 = mix.weight external "a.w1" : tensor<64x256xf32>
    %w2 = mix.weight external "a.w2" : tensor<256x64xf32>
    %u = mix.dense %i, %w1 : (tensor<32x64xf32>, tensor<64x256xf32>) -> tensor<32x256xf32>
    %v = mix.gelu %u : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %o = mix.dense %v, %w2 : (tensor<32x256xf32>, tensor<256x64xf32>) -> tensor<32x64xf32>
    mix.yield %o : tensor<32x64xf32>
  }
  %b = mix.block @b (%i = %a) : (tensor<32x64xf32>) -> tensor<32x64xf32> {
    %w1 = mix.weight external "b.w1" : tensor<64x256xf32>
    %w2 = mix.weight external "b.w2" : tensor<256x64xf32>
    %u = mix.dense %i, %w1 : (tensor<32x64xf32>, tensor<64x256xf32>) -> tensor<32x256xf32>
    %v = mix.gelu %u : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %o = mix.dense %v, %w2 : (tensor<32x256xf32>, tensor<256x64xf32>) -> tensor<32x64xf32>
    mix.yield %o : tensor<32x64xf32>
  }
  %l = mix.mse_loss %b, %t : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
