// A conv2d -> batch_norm -> relu in f32 (folded), and in an f16 block whose
// batch_norm is kept in f32 (not folded).
mix.network @convbn precision(f32) (%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = mix.weight dense<[[[[0.5]], [[-1.0]]], [[[2.0]], [[0.25]]]]> : tensor<2x2x1x1xf32>
  %s = mix.weight dense<[1.5, 0.75]> : tensor<2xf32>
  %o = mix.weight dense<[0.1, -0.2]> : tensor<2xf32>
  %m = mix.weight dense<[0.3, 0.4]> : tensor<2xf32>
  %v = mix.weight dense<[2.0, 0.5]> : tensor<2xf32>
  %c = mix.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = mix.batch_norm %c, %s, %o, %m, %v : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = mix.relu %n : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = mix.block @half precision(f16) (%a = %r, %kw = %w, %ks = %s, %ko = %o, %km = %m, %kv = %v) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> {
    %c2 = mix.conv2d %a, %kw : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %n2 = mix.batch_norm %c2, %ks, %ko, %km, %kv precision(f32) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
    mix.yield %n2 : tensor<1x2x4x4xf32>
  }
  mix.return %y : tensor<1x2x4x4xf32>
}
