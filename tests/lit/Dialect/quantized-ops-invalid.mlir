// Every verifier diagnostic of the quantized ops.
// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false


mix.network @bad_scale precision(f32) (%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'mix.quantize' op scale must be positive and finite, got -1}}
  %q, %s, %z = mix.quantize %x symmetric static(scale = -1.0, zero_point = 0) : tensor<4xf32> -> tensor<4xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<4xi8>
}

// -----

mix.network @bad_zero_point precision(f32) (%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'mix.quantize' op the symmetric scheme needs zero point 0, got 3}}
  %q, %s, %z = mix.quantize %x symmetric static(scale = 1.0, zero_point = 3) : tensor<4xf32> -> tensor<4xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<4xi8>
}

// -----

mix.network @zero_point_range precision(f32) (%x: tensor<4xf32>) -> tensor<4xi8> {
  // expected-error @+1 {{'mix.quantize' op zero point 200 is outside [-128, 127]}}
  %q, %s, %z = mix.quantize %x asymmetric static(scale = 1.0, zero_point = 200) : tensor<4xf32> -> tensor<4xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<4xi8>
}

// -----

mix.network @shape precision(f32) (%x: tensor<4xf32>) -> tensor<2xi8> {
  // expected-error @+1 {{'mix.quantize' op result shape [2] differs from the input shape [4]}}
  %q, %s, %z = mix.quantize %x symmetric : tensor<4xf32> -> tensor<2xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<2xi8>
}

// -----

mix.network @channel_scales precision(f32) (%q: tensor<1x4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1> : tensor<4x2xi8>
  %ws = mix.weight dense<0.25> : tensor<3xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.qdense' op expects weight scales of shape [1] or [2] (output channels), got [3]}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<1x4xi8>, tensor<f32>, tensor<i32>, tensor<4x2xi8>, tensor<3xf32>, tensor<2xi32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @k_chunk precision(f32) (%q: tensor<1x4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1> : tensor<4x2xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.qdense' op expects k_chunk >= 1, got 0}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz {k_chunk = 0 : i64} : (tensor<1x4xi8>, tensor<f32>, tensor<i32>, tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @conv_groups precision(f32) (%img: tensor<1x2x4x4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x2x2x2xf32> {
  %cw = mix.weight dense<1> : tensor<2x1x3x3xi8>
  %cs = mix.weight dense<0.25> : tensor<1xf32>
  %cz = mix.weight dense<0> : tensor<1xi32>
  // expected-error @+1 {{'mix.qconv2d' op k_chunk needs groups = 1}}
  %c = mix.qconv2d %img, %s, %z, %cw, %cs, %cz {groups = 2 : i64, k_chunk = 4 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x2x2x2xf32>
  mix.return %c : tensor<1x2x2x2xf32>
}

// -----

mix.network @dense_shape precision(f32) (%q: tensor<1x3xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x2xf32> {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight dense<1> : tensor<4x2xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.qdense' op input features (3) do not match the weight's rows (4)}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<1x3xi8>, tensor<f32>, tensor<i32>, tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @static_axis precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'mix.quantize' op static parameters are per tensor; remove the axis}}
  %q, %s, %z = mix.quantize %x symmetric static(scale = 1.0, zero_point = 0) axis(0) : tensor<2x4xf32> -> tensor<2x4xi8>, tensor<2xf32>, tensor<2xi32>
  mix.return %q : tensor<2x4xi8>
}

// -----

mix.network @axis_range precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'mix.quantize' op axis 2 is outside the input's rank 2}}
  %q, %s, %z = mix.quantize %x symmetric axis(2) : tensor<2x4xf32> -> tensor<2x4xi8>, tensor<2xf32>, tensor<2xi32>
  mix.return %q : tensor<2x4xi8>
}

// -----

mix.network @param_shape precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xi8> {
  // expected-error @+1 {{'mix.quantize' op expects parameter results of shape [2] (per index along the axis)}}
  %q, %s, %z = mix.quantize %x symmetric axis(0) : tensor<2x4xf32> -> tensor<2x4xi8>, tensor<f32>, tensor<i32>
  mix.return %q : tensor<2x4xi8>
}

// -----

mix.network @row_params precision(f32) (%q: tensor<2x4xi8>, %s: tensor<3xf32>, %z: tensor<3xi32>) -> tensor<2x2xf32> {
  %w = mix.weight dense<1> : tensor<4x2xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.qdense' op per-row input parameters need a [M, K] input with M = 3, got [2, 4]}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<2x4xi8>, tensor<3xf32>, tensor<3xi32>, tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  mix.return %y : tensor<2x2xf32>
}

// -----

mix.network @dequantize_shape precision(f32) (%q: tensor<4x2xi8>) -> tensor<2x4xf32> {
  %s = mix.weight dense<0.5> : tensor<1xf32>
  %z = mix.weight dense<0> : tensor<1xi32>
  // expected-error @+1 {{'mix.dequantize' op result shape [2, 4] differs from the input shape [4, 2]}}
  %x = mix.dequantize %q, %s, %z : (tensor<4x2xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<2x4xf32>
  mix.return %x : tensor<2x4xf32>
}

// -----

mix.network @dequantize_axis precision(f32) (%q: tensor<4x2xi8>) -> tensor<4x2xf32> {
  %s = mix.weight dense<0.5> : tensor<2xf32>
  %z = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.dequantize' op axis 2 is outside the input's rank 2}}
  %x = mix.dequantize %q, %s, %z axis(2) : (tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  mix.return %x : tensor<4x2xf32>
}

// -----

mix.network @dequantize_scales precision(f32) (%q: tensor<4x2xi8>) -> tensor<4x2xf32> {
  %s = mix.weight dense<0.5> : tensor<4xf32>
  %z = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.dequantize' op expects scales of shape [2] (one per index along the axis), got [4]}}
  %x = mix.dequantize %q, %s, %z axis(1) : (tensor<4x2xi8>, tensor<4xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  mix.return %x : tensor<4x2xf32>
}

// -----

mix.network @dequantize_zero_points precision(f32) (%q: tensor<4x2xi8>) -> tensor<4x2xf32> {
  %s = mix.weight dense<0.5> : tensor<1xf32>
  %z = mix.weight dense<0> : tensor<2xi32>
  // expected-error @+1 {{'mix.dequantize' op expects zero points of shape [1] (per tensor), got [2]}}
  %x = mix.dequantize %q, %s, %z : (tensor<4x2xi8>, tensor<1xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  mix.return %x : tensor<4x2xf32>
}
