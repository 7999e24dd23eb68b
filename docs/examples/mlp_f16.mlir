mix.network @mlp precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<2x4xf32>) -> tensor<2x3xf32> {
    %w = mix.weight dense<0.5> : tensor<4x3xf32>
    %d = mix.dense %a, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %r = mix.relu %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
    mix.yield %r : tensor<2x3xf32>
  }
  %s = mix.softmax %h : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return %s : tensor<2x3xf32>
}
