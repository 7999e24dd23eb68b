mix.network @axis_range precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'mix.quantize' op axis 2 is outside the input's rank 2}}
  %q, %s, %z = mix.quantize %x symmetric axis(2) : tensor<2x4xf32> -> tensor<2x4xi8>, tensor<2xf32>, tensor<2xi32>
  mix.return %q : tensor<2x4xi8>
}
