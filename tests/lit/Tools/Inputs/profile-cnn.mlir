// A small CNN for mix-bench --profile (tests/lit/Tools/mix-bench.test).
mix.network @cnn precision(f32) (%x: tensor<1x3x16x16xf32>) -> tensor<1x10xf32> {
  %w1 = mix.weight dense<0.01> : tensor<8x3x3x3xf32>
  %c1 = mix.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
  %r1 = mix.relu %c1 : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %w2 = mix.weight dense<0.02> : tensor<16x8x3x3xf32>
  %c2 = mix.conv2d %r1, %w2 precision(int8) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x16x16xf32>
  %g = mix.global_avg_pool %c2 : (tensor<1x16x16x16xf32>) -> tensor<1x16xf32>
  %w3 = mix.weight dense<0.01> : tensor<16x10xf32>
  %y = mix.dense %g, %w3 : (tensor<1x16xf32>, tensor<16x10xf32>) -> tensor<1x10xf32>
  mix.return %y : tensor<1x10xf32>
}
