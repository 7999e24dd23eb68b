mix.network @row_params precision(f32) (%q: tensor<2x4xi8>, %s: tensor<3xf32>, %z: tensor<3xi32>) -> tensor<2x2xf32> {
  %w = mix.weight dense<1> : tensor<4x2xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.qdense' op per-row input parameters need a [M, K] input with M = 3, got [2, 4]}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<2x4xi8>, tensor<3xf32>, tensor<3xi32>, tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  mix.return %y : tensor<2x2xf32>
}
