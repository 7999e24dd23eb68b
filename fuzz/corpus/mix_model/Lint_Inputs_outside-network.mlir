// Resolution fails: a layer outside any network.
mix.network @net precision(f32) () {
  mix.return
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
