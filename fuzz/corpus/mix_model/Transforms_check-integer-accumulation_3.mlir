// A zero point passed in from outside could be any i32: nothing is proven.
mix.network @unknown_zero_point precision(f32) (%q: tensor<1x4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<1> : tensor<4x1xi8>
  %ws = mix.weight dense<1.0> : tensor<1xf32>
  %wz = mix.weight dense<0> : tensor<1xi32>
  // expected-error @+1 {{'mix.qdense' op cannot prove that its i32 sums fit: a zero point is neither produced by mix.quantize nor a constant}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<1x4xi8>, tensor<f32>, tensor<i32>, tensor<4x1xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x1xf32>
  mix.return %y : tensor<1x1xf32>
}
