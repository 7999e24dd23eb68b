mix.network @net precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = mix.relu %x : (tensor<2x4xf32>) -> tensor<4x2xf32>
  mix.return %x : tensor<2x4xf32>
}
