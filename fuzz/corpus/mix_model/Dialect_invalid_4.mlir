// The scheme may only come first.
// expected-error @+1 {{expected 'symmetric', 'asymmetric' or 'axis = N', got 'asymmetric'}}
module attributes {t.p = #mix.precision<int8<axis = 0, asymmetric>>} {}
