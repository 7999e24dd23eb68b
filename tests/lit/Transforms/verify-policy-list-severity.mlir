// List rules at "warning" and "off": op-list findings become warnings and
// the pass succeeds; block-list findings vanish.
// RUN: mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/lists-as-warnings.json" -o /dev/null 2>&1 | FileCheck %s
// With the lists at their default severity (error), the pass fails.
// RUN: not mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/extends-none.json" -o /dev/null

// CHECK-NOT: error
// CHECK: verify-policy-list-severity.mlir:[[@LINE+8]]:8: warning: [op-precision-list] 'mix.relu' resolves its activations to f16, which the policy does not allow for op kind 'relu'
// CHECK-NEXT: %0 = mix.relu
// CHECK: verify-policy-list-severity.mlir:[[@LINE+5]]:1: note: f16 inherited from network @n
// CHECK: warning: [op-precision-list] 'mix.relu' resolves its output to f16, which the policy does not allow for op kind 'relu'
// CHECK-NOT: error
// CHECK-NOT: block-precision-list

mix.network @n precision(f16) (%t: tensor<2x8xf32>) {
  %0 = mix.relu %t : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.block @b (%a = %t) : (tensor<2x8xf32>) -> () {
    %1 = mix.gelu %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
    mix.yield
  }
  mix.return
}
