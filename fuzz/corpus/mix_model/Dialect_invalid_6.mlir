// expected-error @+1 {{expected integer value}}
module attributes {t.p = #mix.precision<int8<axis = x>>} {}
