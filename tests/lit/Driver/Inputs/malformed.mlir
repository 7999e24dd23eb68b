mix.network @net precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = mix.relu %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return %r : tensor<2x4xf32>
