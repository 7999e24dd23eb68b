// Regression test (was a bug, fixed in 323acc3): a layer inside a `mix.block` that sets a precision but is not inside
// any `mix.network` is resolved without error: inheritedPrecision() stops at
// the first block with a precision and never checks that a network encloses
// it, although Resolve.h documents that it "emits an error and fails when
// `op` is not inside a `mix.network`" (passes/Resolve.cpp, inheritedPrecision).
// A bare layer in a func.func is rejected (resolve-precision-invalid.mlir).
// RUN: mix-opt %s -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-resolve-precision

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mix.block @b precision(f16) (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'mix.relu' op is not inside a 'mix.network', so it has no default precision}}
    %1 = mix.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    mix.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
