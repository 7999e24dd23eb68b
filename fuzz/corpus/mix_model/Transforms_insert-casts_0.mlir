// Idempotent: a second run inserts nothing.
// Per-scope counts as remarks.
// Unchecked casts on request.

mix.network @chain precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // The value entering the f16 block keeps its type; the block argument
  // takes it, and the first f16 layer casts once for both of its users.
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w = mix.weight external "w" : tensor<8x8xf32>
    %d = mix.dense %a, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // A layer forced to f32 between f16 layers: widen (unchecked, exact) in,
    // narrow (checked) out.
    %s = mix.softmax %d precision(f32) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %sum = mix.add %s, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    mix.yield %sum : tensor<4x8xf32>
  }
  // The network keeps its declared f32 output.
  mix.return %h : tensor<4x8xf32>
}
