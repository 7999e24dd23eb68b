// Dynamic asymmetric parameters, as mixrt computes them: lo = min(min x, 0)
// and hi = max(max x, 0) (0-initialised reductions), scale = (hi - lo) / 255
// in f64 rounded once to f32 (at least FLT_MIN), zero point
// round_half_even(-128 - lo / scale) clamped to [-128, 127]; an all-zero
// tensor gets scale 1. qconv2d pads with the zero point.
mix.network @conv precision(f32) (%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %q, %s, %z = mix.quantize %x asymmetric : tensor<1x1x4x4xf32> -> tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<1> : tensor<2x1x3x3xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  %y = mix.qconv2d %q, %s, %z, %w, %ws, %wz {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x4xf32>
  mix.return %y : tensor<1x2x4x4xf32>
}
