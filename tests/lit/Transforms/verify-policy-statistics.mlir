// Statistics of mix-verify-policy: errors and warnings reported. Pass
// statistics only exist in builds with LLVM statistics enabled.
// REQUIRES: pass-statistics
// RUN: not mix-opt %s --mix-verify-policy --mlir-pass-statistics --mlir-pass-statistics-display=list --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: {{MixVerifyPolicyPass|mix-verify-policy}}
// CHECK-DAG: (S) 2 errors{{ +}}- Policy errors reported
// CHECK-DAG: (S) 3 warnings{{ +}}- Policy warnings reported
mix.network @n precision(f16) (%t: tensor<2x8xf32>) {
  // sensitive-op-precision (error) + reduced-precision-reduction (warning)
  %0 = mix.softmax %t : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // int8-non-gemm-layer (error)
  %1 = mix.relu %t precision(int8) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // redundant-override (warning) twice
  %2 = mix.relu %t precision(f16) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %3 = mix.gelu %t precision(f16) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.return
}
