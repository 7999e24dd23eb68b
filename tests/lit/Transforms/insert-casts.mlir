// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts | FileCheck %s
// Idempotent: a second run inserts nothing.
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts > %t.once
// RUN: mix-opt %t.once --mix-insert-casts > %t.twice
// RUN: diff %t.once %t.twice
// Per-scope counts as remarks.
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts=report=true --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// Unchecked casts on request.
// RUN: mix-opt %s --mix-insert-casts=checked=false | FileCheck %s --check-prefix=UNCHECKED

// CHECK-LABEL: mix.network @chain precision(f32)
// REPORT-DAG: insert-casts.mlir:[[@LINE+1]]:1: remark: network @chain: 1 cast(s) inserted
mix.network @chain precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // The value entering the f16 block keeps its type; the block argument
  // takes it, and the first f16 layer casts once for both of its users.
  // CHECK: %[[B:.*]] = mix.block @half precision(f16) (%[[A:.*]] = %{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf16>
  // REPORT-DAG: insert-casts.mlir:[[@LINE+1]]:8: remark: block @half: 4 cast(s) inserted
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    // CHECK: %[[C:.*]] = mix.cast %[[A]] checked : tensor<4x8xf32> to tensor<4x8xf16>
    // CHECK: %[[W:.*]] = mix.weight external "w" : tensor<8x8xf32>
    // CHECK: %[[WC:.*]] = mix.cast %[[W]] checked : tensor<8x8xf32> to tensor<8x8xf16>
    // CHECK: %[[D:.*]] = mix.dense %[[C]], %[[WC]] {{.*}}: (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
    // UNCHECKED: mix.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
    // UNCHECKED-NOT: checked
    %w = mix.weight external "w" : tensor<8x8xf32>
    %d = mix.dense %a, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // A layer forced to f32 between f16 layers: widen (unchecked, exact) in,
    // narrow (checked) out.
    // CHECK: %[[UP:.*]] = mix.cast %[[D]] : tensor<4x8xf16> to tensor<4x8xf32>
    // CHECK: %[[S:.*]] = mix.softmax %[[UP]] precision(f32) {{.*}}: (tensor<4x8xf32>) -> tensor<4x8xf32>
    // CHECK: %[[DOWN:.*]] = mix.cast %[[S]] checked : tensor<4x8xf32> to tensor<4x8xf16>
    %s = mix.softmax %d precision(f32) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    // CHECK: %[[SUM:.*]] = mix.add %[[DOWN]], %[[C]] {{.*}}: (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
    %sum = mix.add %s, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    // CHECK: mix.yield %[[SUM]] : tensor<4x8xf16>
    mix.yield %sum : tensor<4x8xf32>
  }
  // The network keeps its declared f32 output.
  // CHECK: %[[OUT:.*]] = mix.cast %[[B]] : tensor<4x8xf16> to tensor<4x8xf32>
  // CHECK: mix.return %[[OUT]] : tensor<4x8xf32>
  mix.return %h : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: mix.network @int8
mix.network @int8 precision(int8) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // int8 operands stay f32 here (mix-quantize handles them); the output of an
  // int8 layer is f32: nothing to cast.
  // CHECK-NOT: mix.cast
  // CHECK: mix.dense %{{.*}}, %{{.*}} {{.*}}: (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %w = mix.weight external "w" : tensor<8x8xf32>
  %d = mix.dense %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  mix.return %d : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: mix.network @labels
mix.network @labels precision(bf16) (%x: tensor<4x3xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  // Integer labels are never cast; the bf16 result widens exactly (unchecked)
  // to the declared f32 output.
  // CHECK: %[[X:.*]] = mix.cast %arg0 checked : tensor<4x3xf32> to tensor<4x3xbf16>
  // CHECK: %[[L:.*]] = mix.cross_entropy_loss %[[X]], %arg1 {{.*}}: (tensor<4x3xbf16>, tensor<4xi32>) -> tensor<bf16>
  // CHECK: %[[R:.*]] = mix.cast %[[L]] : tensor<bf16> to tensor<f32>
  // CHECK: mix.return %[[R]] : tensor<f32>
  %l = mix.cross_entropy_loss %x, %y : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// Integers are data, not a precision: in an f16 block an integer compare
// keeps its i64 operands (no cast), an explicit integer -> f32 cast stays
// as written, and only the float value it produces is cast to the block's
// f16 for the layer that reads it.
// CHECK-LABEL: mix.network @integers
// CHECK:       mix.block @half precision(f16) (%[[IDS:.*]] = %arg0)
// CHECK-NEXT:    %[[Z:.*]] = mix.weight dense<0> : tensor<i64>
// CHECK-NEXT:    %[[M:.*]] = mix.compare %[[IDS]], %[[Z]] {{.*}}{predicate = "gt"{{.*}}} : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
// CHECK-NEXT:    %[[F:.*]] = mix.cast %[[IDS]] : tensor<2x4xi64> to tensor<2x4xf32>
// CHECK-NEXT:    %[[H:.*]] = mix.cast %[[F]] checked : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK-NEXT:    %[[R:.*]] = mix.relu %[[H]] {{.*}}: (tensor<2x4xf16>) -> tensor<2x4xf16>
mix.network @integers precision(f32) (%ids: tensor<2x4xi64>) -> (tensor<2x4xf32>) {
  %r = mix.block @half precision(f16) (%i = %ids) : (tensor<2x4xi64>) -> tensor<2x4xf32> {
    %zero = mix.weight dense<0> : tensor<i64>
    %m = mix.compare %i, %zero {predicate = "gt"} : (tensor<2x4xi64>, tensor<i64>) -> tensor<2x4xi1>
    %f = mix.cast %i : tensor<2x4xi64> to tensor<2x4xf32>
    %y = mix.relu %f : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %w = mix.where %m, %y, %f : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %w : tensor<2x4xf32>
  }
  mix.return %r : tensor<2x4xf32>
}
