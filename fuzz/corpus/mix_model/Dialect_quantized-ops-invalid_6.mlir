mix.network @conv_groups precision(f32) (%img: tensor<1x2x4x4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x2x2x2xf32> {
  %cw = mix.weight dense<1> : tensor<2x1x3x3xi8>
  %cs = mix.weight dense<0.25> : tensor<1xf32>
  %cz = mix.weight dense<0> : tensor<1xi32>
  // expected-error @+1 {{'mix.qconv2d' op k_chunk needs groups = 1}}
  %c = mix.qconv2d %img, %s, %z, %cw, %cs, %cz {groups = 2 : i64, k_chunk = 4 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x2x2x2xf32>
  mix.return %c : tensor<1x2x2x2xf32>
}
