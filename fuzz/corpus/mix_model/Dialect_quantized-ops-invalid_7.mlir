mix.network @dense_shape precision(f32) (%q: tensor<1x3xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x2xf32> {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight dense<1> : tensor<4x2xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.qdense' op input features (3) do not match the weight's rows (4)}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<1x3xi8>, tensor<f32>, tensor<i32>, tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
