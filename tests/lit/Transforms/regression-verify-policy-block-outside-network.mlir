// REGRESSION: mix-verify-policy reports an error for a block with a precision that
// is outside any network, but the pass still succeeds (mix-opt exits 0 and
// prints the IR). Checker::checkBlock (passes/PolicyCheck.cpp) calls
// inheritedPrecision(), which emits the error, and ignores the failure; the
// pass only fails on resolution failures of layers and on policy errors.
// mix-lint swallows the diagnostic and reports "0 error(s)" with exit 0.
// A pass that emits an error must fail (as mix-resolve-precision does for a
// layer outside a network).
// RUN: mix-opt %s -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null
// RUN: not mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op is not inside a 'mix.network', so it has no default precision}}
  mix.block @b precision(f16) (%a = %x) : (tensor<4xf32>) -> () {
    mix.yield
  }
  return
}
