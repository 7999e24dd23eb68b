// Round trip of mix.attention's optional biases and mask (each printed by
// name, in the order bq, bk, bv, bo, mask, only when present) and of
// mix.attention_core's mask; attention without them prints as before.
// RUN: mix-opt %s | mix-opt | FileCheck %s
// RUN: mix-opt %s --mlir-print-op-generic | mix-opt | FileCheck %s

// CHECK-LABEL: mix.network @attention
// CHECK: %[[X:.*]]: tensor<2x4x8xf32>, %[[M:.*]]: tensor<2x1x1x4xf32>
// CHECK-DAG: %[[W:.*]] = mix.weight external "w"
// CHECK-DAG: %[[B:.*]] = mix.weight external "b"
// CHECK: mix.attention %[[X]], %[[W]], %[[W]], %[[W]], %[[W]] {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
// CHECK: mix.attention %[[X]], %[[W]], %[[W]], %[[W]], %[[W]] bq(%[[B]]) bk(%[[B]]) bv(%[[B]]) bo(%[[B]]) mask(%[[M]]) precision(f16) {causal = true, num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x1x1x4xf32>) -> tensor<2x4x8xf32>
// CHECK: mix.attention %[[X]], %[[W]], %[[W]], %[[W]], %[[W]] bq(%[[B]]) bv(%[[B]]) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
// CHECK: mix.attention %[[X]], %[[W]], %[[W]], %[[W]], %[[W]] mask(%[[S:.*]]) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
// CHECK: mix.attention %[[X]], %[[W]], %[[W]], %[[W]], %[[W]] bo(%[[B]]) mask(%[[H:.*]]) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<1x2x4x4xf16>) -> tensor<2x4x8xf32>
mix.network @attention precision(f32) (%x: tensor<2x4x8xf32>, %m: tensor<2x1x1x4xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  %b = mix.weight external "b" : tensor<8xf32>
  %s = mix.weight external "s" : tensor<4x4xf32>
  %h = mix.weight external "h" : tensor<1x2x4x4xf16>
  %0 = mix.attention %x, %w, %w, %w, %w {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %1 = mix.attention %x, %w, %w, %w, %w bq(%b) bk(%b) bv(%b) bo(%b) mask(%m) precision(f16) {causal = true, num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x1x1x4xf32>) -> tensor<2x4x8xf32>
  %2 = mix.attention %x, %w, %w, %w, %w bq(%b) bv(%b) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %3 = mix.attention %x, %w, %w, %w, %w mask(%s) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  %4 = mix.attention %x, %w, %w, %w, %w bo(%b) mask(%h) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<1x2x4x4xf16>) -> tensor<2x4x8xf32>
  mix.return
}

// CHECK-LABEL: mix.network @core
// CHECK: mix.attention_core %[[Q:.*]], %[[Q]], %[[Q]] {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK: mix.attention_core %[[Q]], %[[Q]], %[[Q]], %[[M:.*]] {causal = true, num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>) -> tensor<2x4x8xf32>
mix.network @core precision(f32) (%q: tensor<2x4x8xf32>, %m: tensor<2x4x4xf32>) {
  %0 = mix.attention_core %q, %q, %q {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %1 = mix.attention_core %q, %q, %q, %m {causal = true, num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32>) -> tensor<2x4x8xf32>
  mix.return
}
