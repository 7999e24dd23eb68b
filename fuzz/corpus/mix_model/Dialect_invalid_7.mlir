// expected-error @+1 {{int8 quantization axis must be >= 0, got -2}}
module attributes {t.p = #mix.precision<int8<axis = -2>>} {}
