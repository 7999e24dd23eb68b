// Builtin types other than the precision types are not precisions.
// expected-error @+1 {{expected a precision: f64, f32, f16, bf16, int8 or i32}}
module attributes {t.p = #mix.precision<i16>} {}
