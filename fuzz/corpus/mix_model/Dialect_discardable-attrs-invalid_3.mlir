mix.network @name_on_op precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.name' as an op attribute: it names a network input or output}}
  %y = mix.relu %x {mix.name = "r"} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %y : tensor<1x4xf32>
}
