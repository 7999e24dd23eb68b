// A model the default policy accepts without findings.
mix.network @clean precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %w = mix.weight external "fc.w" : tensor<8x4xf32>
  %y = mix.block @fast precision(f16) (%a = %x, %b = %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32> {
    %d = mix.dense %a, %b : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %r = mix.relu %d : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %r : tensor<2x4xf32>
  }
  %p = mix.softmax %y : (tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return %p : tensor<2x4xf32>
}
