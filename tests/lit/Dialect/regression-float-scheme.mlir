// Regression test (was a bug, fixed in 323acc3): a float precision written with the `symmetric` scheme is accepted and
// silently dropped (`f16<symmetric>` parses as `f16`), because the parser
// cannot tell an explicit `symmetric` from the default scheme
// (dialect/MixAttrs.cpp, PrecisionAttr::parseBody / PrecisionAttr::verify).
// `f16<asymmetric>` and `f16<axis = 0>` are rejected (see invalid.mlir).
// RUN: mix-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not f16}}
module attributes {t.p = #mix.precision<f16<symmetric>>} {}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{only int8 precisions have a quantization scheme or axis, not bf16}}
  %0 = mix.relu %x precision(activations = bf16<symmetric>) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
