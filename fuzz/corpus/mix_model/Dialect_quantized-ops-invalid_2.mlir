mix.network @zero_point_range precision(f32) (%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'mix.quantize' op zero point 200 is outside [-128, 127]}}
  %q, %s, %z = mix.quantize %x asymmetric static(scale = 1.0, zero_point = 200) : tensor<4xf32> -> tensor<4xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<4xi8>
}
