// expected-error @+1 {{expected '='}}
module attributes {t.p = #mix.precision<int8<axis 0>>} {}
