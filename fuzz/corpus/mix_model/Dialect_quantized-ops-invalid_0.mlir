// Every verifier diagnostic of the quantized ops.


mix.network @bad_scale precision(f32) (%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'mix.quantize' op scale must be positive and finite, got -1}}
  %q, %s, %z = mix.quantize %x symmetric static(scale = -1.0, zero_point = 0) : tensor<4xf32> -> tensor<4xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<4xi8>
}
