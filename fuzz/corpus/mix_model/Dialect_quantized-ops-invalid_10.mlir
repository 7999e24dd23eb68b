mix.network @param_shape precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'mix.quantize' op expects parameter results of shape [2] (per index along the axis)}}
  %q, %s, %z = mix.quantize %x symmetric axis(0) : tensor<2x4xf32> -> tensor<2x4xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<2x4xi8>
}
