mix.network @shape precision(f32) (%x: tensor<4xf32>) -> tensor<2xi8> {
  // expected-error @+1 {{'mix.quantize' op result shape [2] differs from the input shape [4]}}
  %q, %s, %z = mix.quantize %x symmetric : tensor<4xf32> -> tensor<2xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<2xi8>
}
