mix.network @static_axis precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'mix.quantize' op static parameters are per tensor; remove the axis}}
  %q, %s, %z = mix.quantize %x symmetric static(scale = 1.0, zero_point = 0) axis(0) : tensor<2x4xf32> -> tensor<2x4xi8>, tensor<2xf32>, tensor<2xi32>
  mix.return %q : tensor<2x4xi8>
}
