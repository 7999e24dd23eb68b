// Round trip of the gating and recurrent layers: attributes at their
// defaults are not printed, others are; every op takes the layer precision
// syntax.
// RUN: mix-opt %s | mix-opt | FileCheck %s
// RUN: mix-opt %s --mlir-print-op-generic | mix-opt | FileCheck %s

// CHECK-LABEL: mix.network @glu
// CHECK: mix.glu %[[X:.*]] : (tensor<4x16xf32>) -> tensor<4x8xf32>
// CHECK: mix.glu %[[X]] precision(f16) {axis = 0 : i64} : (tensor<4x16xf32>) -> tensor<2x16xf32>
mix.network @glu precision(f32) (%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %0 = mix.glu %x {axis = -1 : i64} : (tensor<4x16xf32>) -> tensor<4x8xf32>
  %1 = mix.glu %x precision(f16) {axis = 0 : i64} : (tensor<4x16xf32>) -> tensor<2x16xf32>
  mix.return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: mix.network @glu_dynamic_batch
// CHECK: mix.glu %{{.*}} {axis = -2 : i64} : (tensor<?x6x5xf32>) -> tensor<?x3x5xf32>
mix.network @glu_dynamic_batch precision(f32) (%d: tensor<?x6x5xf32>) -> tensor<?x3x5xf32> {
  %0 = mix.glu %d {axis = -2 : i64} : (tensor<?x6x5xf32>) -> tensor<?x3x5xf32>
  mix.return %0 : tensor<?x3x5xf32>
}

// CHECK-LABEL: mix.network @lstm
// CHECK: mix.lstm %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} b(%{{[^)]*}}) precision(f16) : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
// CHECK: mix.lstm %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} initial_h(%[[H0:[^)]*]]) initial_c(%[[H0]]) {direction = "bidirectional", layout = 1 : i64, state_precision = #mix.precision<f16>} : (tensor<2x5x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> (tensor<2x5x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
// CHECK: mix.lstm %{{.*}}, %{{.*}}, %{{.*}} initial_c(%{{.*}}) {direction = "reverse"}
mix.network @lstm precision(f32) (%x: tensor<5x2x3xf32>, %x2: tensor<2x5x3xf32>) -> tensor<5x1x2x4xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  %b = mix.weight external "b" : tensor<1x32xf32>
  %w2 = mix.weight external "w2" : tensor<2x16x3xf32>
  %r2 = mix.weight external "r2" : tensor<2x16x4xf32>
  %h0 = mix.weight external "h0" : tensor<2x2x4xf32>
  %c0 = mix.weight external "c0" : tensor<1x2x4xf32>
  %y, %yh, %yc = mix.lstm %x, %w, %r b(%b) precision(f16) {direction = "forward", layout = 0 : i64} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %z:3 = mix.lstm %x2, %w2, %r2 initial_h(%h0) initial_c(%h0) {direction = "bidirectional", layout = 1 : i64, state_precision = #mix.precision<f16>} : (tensor<2x5x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> (tensor<2x5x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
  %u:3 = mix.lstm %x, %w, %r initial_c(%c0) {direction = "reverse"} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y : tensor<5x1x2x4xf32>
}

// CHECK-LABEL: mix.network @gru
// CHECK: mix.gru %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} b(%{{[^)]*}}) precision(f16) {linear_before_reset = 1 : i64} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
// CHECK: mix.gru %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} initial_h(%{{[^)]*}}) {direction = "bidirectional", layout = 1 : i64, state_precision = #mix.precision<f64>} : (tensor<2x5x3xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>, tensor<2x2x4xf32>) -> (tensor<2x5x2x4xf32>, tensor<2x2x4xf32>)
mix.network @gru precision(f32) (%x: tensor<5x2x3xf32>, %x2: tensor<2x5x3xf32>) -> tensor<5x1x2x4xf32> {
  %w = mix.weight external "w" : tensor<1x12x3xf32>
  %r = mix.weight external "r" : tensor<1x12x4xf32>
  %b = mix.weight external "b" : tensor<1x24xf32>
  %w2 = mix.weight external "w2" : tensor<2x12x3xf32>
  %r2 = mix.weight external "r2" : tensor<2x12x4xf32>
  %h0 = mix.weight external "h0" : tensor<2x2x4xf32>
  %y:2 = mix.gru %x, %w, %r b(%b) precision(f16) {linear_before_reset = 1 : i64} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  %z:2 = mix.gru %x2, %w2, %r2 initial_h(%h0) {direction = "bidirectional", layout = 1 : i64, linear_before_reset = 0 : i64, state_precision = #mix.precision<f64>} : (tensor<2x5x3xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>, tensor<2x2x4xf32>) -> (tensor<2x5x2x4xf32>, tensor<2x2x4xf32>)
  mix.return %y#0 : tensor<5x1x2x4xf32>
}
