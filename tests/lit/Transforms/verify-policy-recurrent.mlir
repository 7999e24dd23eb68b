// The default policy on the gating and recurrent layers: glu evaluates exp
// (a warning in f16), and int8 is refused on it (not a GEMM).
// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null

// expected-note @+1 {{f16 inherited from network @n}}
mix.network @n precision(f16) (%t: tensor<2x4xf32>) {
  // expected-warning @+1 {{[reduced-precision-reduction] 'mix.glu' evaluates exp in f16 (activations); exp overflows reduced formats quickly}}
  %0 = mix.glu %t : (tensor<2x4xf32>) -> tensor<2x2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%t: tensor<2x4xf32>) {
  // expected-error @+2 {{[int8-non-gemm-layer]}}
  // expected-note @+1 {{int8 set by the layer's own precision}}
  %0 = mix.glu %t precision(int8) : (tensor<2x4xf32>) -> tensor<2x2xf32>
  mix.return
}
