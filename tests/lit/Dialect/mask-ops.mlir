// Round trip of the indexing layers of issue 13 (gather, expand) and of
// max_pool2d's dilations and ceil_mode: attributes at their defaults are not
// printed, others are; every op takes the layer precision syntax.
// RUN: mix-opt %s | mix-opt | FileCheck %s
// RUN: mix-opt %s --mlir-print-op-generic | mix-opt | FileCheck %s

// CHECK-LABEL: mix.network @masks
// CHECK: mix.gather %[[X:.*]] {axis = 1 : i64, indices = dense<0> : tensor<i64>} : (tensor<2x16x8xf32>) -> tensor<2x8xf32>
// CHECK: mix.gather %[[X]] precision(f16) {axis = -1 : i64, indices = dense<{{\[}}[7, 0], [1, 1]]> : tensor<2x2xi64>} : (tensor<2x16x8xf32>) -> tensor<2x16x2x2xf32>
// CHECK: mix.expand %[[V:.*]] : (tensor<16x1xf32>) -> tensor<2x16x8xf32>
// CHECK: mix.expand %[[V]] precision(bf16) : (tensor<16x1xf32>) -> tensor<16x1xf32>
mix.network @masks precision(f32) (%x: tensor<2x16x8xf32>, %v: tensor<16x1xf32>) {
  %0 = mix.gather %x {axis = 1 : i64, indices = dense<0> : tensor<i64>} : (tensor<2x16x8xf32>) -> tensor<2x8xf32>
  %1 = mix.gather %x precision(f16) {axis = -1 : i64, indices = dense<[[7, 0], [1, 1]]> : tensor<2x2xi64>} : (tensor<2x16x8xf32>) -> tensor<2x16x2x2xf32>
  %2 = mix.expand %v : (tensor<16x1xf32>) -> tensor<2x16x8xf32>
  %3 = mix.expand %v precision(bf16) : (tensor<16x1xf32>) -> tensor<16x1xf32>
  mix.return
}

// CHECK-LABEL: mix.network @pools
// CHECK: mix.max_pool2d %[[X:.*]] {kernel = array<i64: 3, 3>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x6x6xf32>
// CHECK: mix.max_pool2d %[[X]] {dilations = array<i64: 2, 3>, kernel = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x6x5xf32>
// CHECK: mix.max_pool2d %[[X]] {ceil_mode = true, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
mix.network @pools precision(f32) (%x: tensor<1x2x8x8xf32>) {
  %0 = mix.max_pool2d %x {kernel = array<i64: 3, 3>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x8x8xf32>) -> tensor<1x2x6x6xf32>
  %1 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, dilations = array<i64: 2, 3>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x6x5xf32>
  %2 = mix.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  mix.return
}

// Run-time indices are a second operand (i64 or i32), the attribute absent.
// CHECK-LABEL: mix.network @runtime_indices
// CHECK: mix.gather %[[X:.*]], %[[I:.*]] {axis = 1 : i64} : (tensor<2x16x8xf32>, tensor<3xi64>) -> tensor<2x3x8xf32>
// CHECK: mix.gather %[[X]], %[[J:.*]] precision(f16) {axis = 0 : i64} : (tensor<2x16x8xf32>, tensor<2x2xi32>) -> tensor<2x2x16x8xf32>
mix.network @runtime_indices precision(f32) (%x: tensor<2x16x8xf32>, %i: tensor<3xi64>, %j: tensor<2x2xi32>) {
  %0 = mix.gather %x, %i {axis = 1 : i64} : (tensor<2x16x8xf32>, tensor<3xi64>) -> tensor<2x3x8xf32>
  %1 = mix.gather %x, %j precision(f16) {axis = 0 : i64} : (tensor<2x16x8xf32>, tensor<2x2xi32>) -> tensor<2x2x16x8xf32>
  mix.return
}

// A dynamic batch is kept by gather along another axis and by expand.
// CHECK-LABEL: mix.network @batch
// CHECK: mix.gather %{{.*}} {axis = 1 : i64, indices = dense<[2, 0]> : tensor<2xi64>} : (tensor<?x4xf32>) -> tensor<?x2xf32>
// CHECK: mix.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<?x4xf32>, tensor<5xi32>) -> tensor<?x5xf32>
// CHECK: mix.expand %{{.*}} : (tensor<?x1xf32>) -> tensor<?x4xf32>
mix.network @batch precision(f32) (%x: tensor<?x4xf32>, %y: tensor<?x1xf32>, %i: tensor<5xi32>) -> (tensor<?x2xf32>, tensor<?x4xf32>, tensor<?x5xf32>) {
  %0 = mix.gather %x {axis = 1 : i64, indices = dense<[2, 0]> : tensor<2xi64>} : (tensor<?x4xf32>) -> tensor<?x2xf32>
  %2 = mix.gather %x, %i {axis = 1 : i64} : (tensor<?x4xf32>, tensor<5xi32>) -> tensor<?x5xf32>
  %1 = mix.expand %y : (tensor<?x1xf32>) -> tensor<?x4xf32>
  mix.return %0, %1, %2 : tensor<?x2xf32>, tensor<?x4xf32>, tensor<?x5xf32>
}

// compare and where (attention masks): the predicate is an attribute, the
// mask an i1 tensor of the broadcast shape.
// CHECK-LABEL: mix.network @compare_where
// CHECK: %[[M:.*]] = mix.compare %[[MASK:.*]], %[[Z:.*]] {predicate = "eq"} : (tensor<2x1x1x8xf32>, tensor<f32>) -> tensor<2x1x1x8xi1>
// CHECK: mix.compare %[[S:.*]], %[[MASK]] precision(f16) {predicate = "ge"} : (tensor<2x4x8x8xf32>, tensor<2x1x1x8xf32>) -> tensor<2x4x8x8xi1>
// CHECK: mix.where %[[M]], %[[Z]], %[[S]] : (tensor<2x1x1x8xi1>, tensor<f32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
mix.network @compare_where precision(f32) (%s: tensor<2x4x8x8xf32>, %mask: tensor<2x1x1x8xf32>) -> tensor<2x4x8x8xf32> {
  %z = mix.weight dense<0.0> : tensor<f32>
  %m = mix.compare %mask, %z {predicate = "eq"} : (tensor<2x1x1x8xf32>, tensor<f32>) -> tensor<2x1x1x8xi1>
  %g = mix.compare %s, %mask precision(f16) {predicate = "ge"} : (tensor<2x4x8x8xf32>, tensor<2x1x1x8xf32>) -> tensor<2x4x8x8xi1>
  %y = mix.where %m, %z, %s : (tensor<2x1x1x8xi1>, tensor<f32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  mix.return %y : tensor<2x4x8x8xf32>
}

// The unordered predicates, and logical of masks: and, or, xor of two (the
// broadcast shape), not of one.
// CHECK-LABEL: mix.network @logic
// CHECK: %[[U:.*]] = mix.compare %[[A:.*]], %[[B:.*]] {predicate = "uge"} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
// CHECK: %[[C:.*]] = mix.compare %[[B]], %[[B]] {predicate = "ult"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
// CHECK: %[[AND:.*]] = mix.logical %[[U]], %[[C]] {kind = "and"} : (tensor<2x8xi1>, tensor<8xi1>) -> tensor<2x8xi1>
// CHECK: mix.logical %[[AND]], %[[U]] {kind = "xor"} : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
// CHECK: mix.logical %[[AND]] {kind = "not"} : (tensor<2x8xi1>) -> tensor<2x8xi1>
mix.network @logic precision(f32) (%a: tensor<2x8xf32>, %b: tensor<8xf32>) {
  %u = mix.compare %a, %b {predicate = "uge"} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
  %c = mix.compare %b, %b {predicate = "ult"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %and = mix.logical %u, %c {kind = "and"} : (tensor<2x8xi1>, tensor<8xi1>) -> tensor<2x8xi1>
  %x = mix.logical %and, %u {kind = "xor"} : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
  %n = mix.logical %and {kind = "not"} : (tensor<2x8xi1>) -> tensor<2x8xi1>
  mix.return
}
