// expected-error @+1 {{'mix.network' op expects 'mix.name' of output #0 to be a non-empty string, got ""}}
mix.network @name_empty precision(f32) (%x: tensor<1x4xf32>) -> (tensor<1x4xf32> {mix.name = ""}) {
  mix.return %x : tensor<1x4xf32>
}
