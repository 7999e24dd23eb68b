// expected-error @+1 {{'mix.network' op has unknown attribute 'mix.label' on input #0}}
mix.network @arg_unknown precision(f32) (%x: tensor<1x4xf32> {mix.label = "x"}) -> tensor<1x4xf32> {
  mix.return %x : tensor<1x4xf32>
}
