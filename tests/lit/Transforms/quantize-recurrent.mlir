// RUN: mix-opt %s -split-input-file --mix-quantize | FileCheck %s

// An int8 lstm of 2 steps, hidden size 1, is unrolled: W^T and R^T are
// quantized once, per output channel (one gate row of w or r each, here a
// single value, so every value is +-127 with scale |w| / 127); the input
// GEMM of both steps is one qdense with the input biases; each step's
// recurrent GEMM quantizes h dynamically and adds the recurrent biases; the
// gates and the state update are f32 layers.
// CHECK-LABEL: mix.network @lstm
// CHECK-NOT: mix.lstm
// CHECK: %[[X:.*]] = mix.reshape %arg0 precision(f32) : (tensor<2x1x1xf32>) -> tensor<2x1xf32>
// CHECK: %[[W:.*]] = mix.weight dense<{{\[}}[127, -127, 127, 127]]> : tensor<1x4xi8>
// CHECK: %[[WS:.*]] = mix.weight dense<[0.00393700786, 0.00787401571, 0.00196850393, 0.0157480314]> : tensor<4xf32>
// CHECK: %[[Q:.*]], %[[S:.*]], %[[Z:.*]] = mix.quantize %[[X]] symmetric checked
// CHECK: %[[GX:.*]] = mix.qdense %[[Q]], %[[S]], %[[Z]], %[[W]], %[[WS]], {{.*}} -> tensor<2x4xf32>
// CHECK: %[[R:.*]] = mix.weight dense<{{\[}}[127, 127, -127, 127]]> : tensor<1x4xi8>
// CHECK: %[[RS:.*]] = mix.weight dense<[0.00787401571, 0.00393700786, 0.00393700786, 0.00196850393]> : tensor<4xf32>
// Step 0 (h = 0).
// CHECK: %[[H0:.*]] = mix.weight dense<0.000000e+00> : tensor<1x1xf32>
// CHECK: mix.slice %[[GX]] precision(f32) {axes = array<i64: 0>, ends = array<i64: 1>, starts = array<i64: 0>
// CHECK: mix.quantize %[[H0]] symmetric checked
// CHECK: mix.qdense {{.*}}, %[[R]], %[[RS]]
// CHECK-COUNT-3: mix.sigmoid
// CHECK: mix.tanh
// CHECK: mix.tanh
// CHECK: %[[H1:.*]] = mix.mul {{.*}} precision(f32)
// Step 1 reads the same quantized R.
// CHECK: mix.slice %[[GX]] precision(f32) {axes = array<i64: 0>, ends = array<i64: 2>, starts = array<i64: 1>
// CHECK: mix.quantize %[[H1]] symmetric checked
// CHECK: mix.qdense {{.*}}, %[[R]], %[[RS]]
// CHECK-COUNT-3: mix.sigmoid
// CHECK: mix.tanh
// CHECK: mix.tanh
// CHECK: %[[H2:.*]] = mix.mul {{.*}} precision(f32)
// CHECK: %[[Y:.*]] = mix.concat %[[H1]], %[[H2]] precision(f32) {axis = 0 : i64}
// CHECK: %[[Y4:.*]] = mix.reshape %[[Y]] precision(f32) : (tensor<2x1xf32>) -> tensor<2x1x1x1xf32>
// CHECK: %[[YH:.*]] = mix.reshape %[[H2]] precision(f32) : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
// CHECK: mix.return %[[Y4]], %[[YH]]
mix.network @lstm precision(f32) (%x: tensor<2x1x1xf32>) -> (tensor<2x1x1x1xf32>, tensor<1x1x1xf32>) {
  %w = mix.weight dense<[[[0.5], [-1.0], [0.25], [2.0]]]> : tensor<1x4x1xf32>
  %r = mix.weight dense<[[[1.0], [0.5], [-0.5], [0.25]]]> : tensor<1x4x1xf32>
  %b = mix.weight dense<[[0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5]]> : tensor<1x8xf32>
  %y:3 = mix.lstm %x, %w, %r b(%b) precision(int8) : (tensor<2x1x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>, tensor<1x8xf32>) -> (tensor<2x1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>)
  mix.return %y#0, %y#1 : tensor<2x1x1x1xf32>, tensor<1x1x1xf32>
}

// -----

// A gru without linear_before_reset has two recurrent GEMMs per step: the z
// and r rows on h, then the h rows on r * h (quantized per step); an f16
// state rounds h every step. Batch first: the input rows are (b, t).
// CHECK-LABEL: mix.network @gru
// CHECK-NOT: mix.gru
// CHECK: mix.reshape %arg0 precision(f32) : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
// CHECK: mix.qdense {{.*}} -> tensor<2x3xf32>
// CHECK: %[[RZR:.*]] = mix.weight {{.*}} : tensor<1x2xi8>
// CHECK: %[[RH:.*]] = mix.weight {{.*}} : tensor<1x1xi8>
// CHECK: mix.qdense {{.*}}, %[[RZR]], {{.*}} -> tensor<2x2xf32>
// CHECK: %[[RESETH:.*]] = mix.mul {{.*}} : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK: mix.quantize %[[RESETH]] symmetric checked
// CHECK: mix.qdense {{.*}}, %[[RH]], {{.*}} -> tensor<2x1xf32>
// CHECK: %[[HALF:.*]] = mix.cast %{{.*}} : tensor<2x1xf32> to tensor<2x1xf16>
// CHECK: mix.cast %[[HALF]] : tensor<2x1xf16> to tensor<2x1xf32>
// CHECK-NOT: mix.qdense
// CHECK: mix.return
mix.network @gru precision(int8) (%x: tensor<2x1x3xf32>) -> tensor<2x1x1x1xf32> {
  %w = mix.weight dense<[[[0.5, 0.25, -0.125], [1.0, 0.5, 0.25], [-0.5, 0.75, 1.0]]]> : tensor<1x3x3xf32>
  %r = mix.weight dense<[[[0.5], [-0.25], [0.125]]]> : tensor<1x3x1xf32>
  %y:2 = mix.gru %x, %w, %r {layout = 1 : i64, state_precision = #mix.precision<f16>} : (tensor<2x1x3xf32>, tensor<1x3x3xf32>, tensor<1x3x1xf32>) -> (tensor<2x1x1x1xf32>, tensor<2x1x1xf32>)
  mix.return %y#0 : tensor<2x1x1x1xf32>
}
