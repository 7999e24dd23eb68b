// Regression test (was a bug, fixed in 323acc3): `int8<axis = -1>` is accepted and silently means "per tensor" (-1 is
// the internal "no axis" sentinel of PrecisionAttr), although the verifier
// says "int8 quantization axis must be >= 0" and rejects -2
// (dialect/MixAttrs.cpp, PrecisionAttr::parseBody / PrecisionAttr::verify).
// RUN: mix-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{int8 quantization axis must be >= 0, got -1}}
module attributes {t.p = #mix.precision<int8<axis = -1>>} {}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{int8 quantization axis must be >= 0, got -1}}
  %0 = mix.relu %x precision(int8<asymmetric, axis = -1>) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
