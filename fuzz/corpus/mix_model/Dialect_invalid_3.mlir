// expected-error @+1 {{expected 'symmetric', 'asymmetric' or 'axis = N', got 'affine'}}
module attributes {t.p = #mix.precision<int8<affine>>} {}
