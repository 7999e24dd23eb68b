mix.network @net precision(f32) (%x: tensor<2xf32>, %nibbles: tensor<2xi4>) -> tensor<2xf32> {
  %r = mix.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  mix.return %r : tensor<2xf32>
}
