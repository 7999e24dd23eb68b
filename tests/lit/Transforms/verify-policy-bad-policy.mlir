// A policy that cannot be read or parsed is reported at the module, and the
// pass fails.
// RUN: not mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/does-not-exist.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/unknown-rule.json" 2>&1 | FileCheck %s --check-prefix=RULE
// RUN: not mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/malformed.json" 2>&1 | FileCheck %s --check-prefix=JSON

// MISSING: verify-policy-bad-policy.mlir:[[@LINE+8]]:1: error: bad policy: cannot read policy file '{{.*}}Inputs/does-not-exist.json': No such file or directory
// RULE: verify-policy-bad-policy.mlir:[[@LINE+7]]:1: error: bad policy: {{.*}}Inputs/unknown-rule.json: $.rules["no-fp8"]: unknown rule 'no-fp8' (known rules: sensitive-op-precision, int8-non-gemm-layer, accumulator-precision, reduced-precision-reduction, redundant-override, op-precision-list, block-precision-list, recurrent-state-precision, gradient-precision)
// JSON: verify-policy-bad-policy.mlir:[[@LINE+6]]:1: error: bad policy: {{.*}}Inputs/malformed.json:4:3: invalid JSON: {{.+}}
// No IR is printed after the failure.
// MISSING-NOT: mix.network
// RULE-NOT: mix.network
// JSON-NOT: mix.network

module {
  mix.network @n precision(f32) (%x: tensor<4xf32>) {
    %0 = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    mix.return
  }
}
