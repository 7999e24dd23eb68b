// Round trip of log_softmax, layer_norm over trailing axes, instance_norm and
// group_norm: attributes at their defaults are not printed, others are.
// RUN: mix-opt %s | mix-opt | FileCheck %s
// RUN: mix-opt %s --mlir-print-op-generic | mix-opt | FileCheck %s

// CHECK-LABEL: mix.network @norms
// CHECK: mix.log_softmax %[[X:[^ ]*]] : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
// CHECK: mix.log_softmax %[[X]] precision(f16) {axis = 0 : i64} : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
// CHECK: mix.layer_norm %[[X]], %[[G4:.*]], %[[G4]] : (tensor<2x6x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x6x4xf32>
// CHECK: mix.layer_norm %[[X]], %[[G64:.*]], %[[G64]] {axis = 1 : i64} : (tensor<2x6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<2x6x4xf32>
// CHECK: mix.layer_norm %[[X]], %[[G264:.*]], %[[G264]] {axis = -3 : i64, epsilon = 1.000000e-03 : f64} : (tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
// CHECK: mix.instance_norm %[[X]], %[[C:.*]], %[[C]] precision(bf16, accumulator = f32) : (tensor<2x6x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4xf32>
// CHECK: mix.group_norm %[[X]], %[[C]], %[[C]] {epsilon = 1.000000e-03 : f64, num_groups = 3 : i64} : (tensor<2x6x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4xf32>
mix.network @norms precision(f32) (%x: tensor<2x6x4xf32>) -> tensor<2x6x4xf32> {
  %g4 = mix.weight external "g4" : tensor<4xf32>
  %g64 = mix.weight external "g64" : tensor<6x4xf32>
  %g264 = mix.weight external "g264" : tensor<2x6x4xf32>
  %c = mix.weight external "c" : tensor<6xf32>
  %0 = mix.log_softmax %x : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %1 = mix.log_softmax %x precision(f16) {axis = 0 : i64} : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %2 = mix.layer_norm %x, %g4, %g4 {axis = -1 : i64} : (tensor<2x6x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x6x4xf32>
  %3 = mix.layer_norm %x, %g64, %g64 {axis = 1 : i64} : (tensor<2x6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<2x6x4xf32>
  %4 = mix.layer_norm %x, %g264, %g264 {axis = -3 : i64, epsilon = 1.0e-3 : f64} : (tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %5 = mix.instance_norm %x, %c, %c precision(bf16, accumulator = f32) : (tensor<2x6x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4xf32>
  %6 = mix.group_norm %x, %c, %c {num_groups = 3 : i64, epsilon = 1.0e-3 : f64} : (tensor<2x6x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4xf32>
  mix.return %6 : tensor<2x6x4xf32>
}
