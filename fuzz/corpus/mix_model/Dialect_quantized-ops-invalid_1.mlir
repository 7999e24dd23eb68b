mix.network @bad_zero_point precision(f32) (%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'mix.quantize' op the symmetric scheme needs zero point 0, got 3}}
  %q, %s, %z = mix.quantize %x symmetric static(scale = 1.0, zero_point = 3) : tensor<4xf32> -> tensor<4xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<4xi8>
}
