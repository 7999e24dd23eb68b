// Rule severities from a policy file: "warning", "off", and the object form
// {"severity": ...}. With only warnings left, the pass succeeds.
// RUN: mix-opt %s -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/severities.json" -o /dev/null
// RUN: mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/severities.json" -o /dev/null
// The default policy makes the same model fail.
// RUN: not mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null

mix.network @n precision(f32) (%x: tensor<1x4x2x2xf32>, %t: tensor<2x8xf32>) {
  mix.block @half precision(f16) (%a = %x) : (tensor<1x4x2x2xf32>) -> () {
    // redundant-override is off: no warning for this block.
    // expected-note @+1 {{f16 inherited from block @same}}
    mix.block @same precision(f16) (%b = %a) : (tensor<1x4x2x2xf32>) -> () {
      %p = mix.weight external "p" : tensor<4xf32>
      // sensitive-op-precision is a warning.
      // expected-warning @+1 {{[sensitive-op-precision] 'mix.batch_norm' computes in f16 (activations); normalization layers must compute in f32 or wider}}
      %0 = mix.batch_norm %b, %p, %p, %p, %p : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
      mix.yield
    }
    mix.yield
  }
  %w = mix.weight external "w" : tensor<8x4xf32>
  // accumulator-precision is a warning.
  // expected-warning @+2 {{[accumulator-precision] 'mix.dense' multiplies int8 by int8 but accumulates in f32; int8 products must accumulate in exactly i32}}
  // expected-note @+1 {{f32 set by a property override}}
  %1 = mix.dense %t, %w precision(int8, accumulator = f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // int8-non-gemm-layer is off.
  %2 = mix.relu %t precision(int8) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.return
}
