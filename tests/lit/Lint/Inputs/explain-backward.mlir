// A network ending in a loss: --explain adds the backward column. The int8
// layer's backward runs at f32 (straight through), the f16 block's at f16,
// the f64 layer's weight gradients at f64.
mix.network @fit precision(f32) (%x: tensor<4x8xf32>, %t: tensor<4x2xf32>) -> tensor<f32> {
  %h = mix.block @body precision(f16) (%a = %x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w1 = mix.weight external "w1" : tensor<8x8xf32>
    %d1 = mix.dense %a, %w1 precision(int8) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %r = mix.relu %d1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    mix.yield %r : tensor<4x8xf32>
  }
  %w2 = mix.weight external "w2" : tensor<8x2xf32>
  %y = mix.dense %h, %w2 precision(f64) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %l = mix.mse_loss %y, %t : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// Not a loss: no backward ("-").
mix.network @infer precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = mix.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  mix.return %r : tensor<4x8xf32>
}
