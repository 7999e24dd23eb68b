// Every parser and verifier diagnostic of the mix dialect.

//===----------------------------------------------------------------------===//
// Precision attribute syntax
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected a precision: f64, f32, f16, bf16, int8 or i32}}
module attributes {t.p = #mix.precision<f8>} {}
