mix.network @classify precision(f32) (%x: tensor<?x4xf32>) -> tensor<?x3xf32> {
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<?x4xf32>) -> tensor<?x3xf32> {
    %w = mix.weight dense<0.5> : tensor<4x3xf32>
    %d = mix.dense %a, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %r = mix.relu %d : (tensor<?x3xf32>) -> tensor<?x3xf32>
    mix.yield %r : tensor<?x3xf32>
  }
  %s = mix.softmax %h : (tensor<?x3xf32>) -> tensor<?x3xf32>
  mix.return %s : tensor<?x3xf32>
}
