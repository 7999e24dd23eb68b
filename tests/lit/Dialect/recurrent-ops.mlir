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
