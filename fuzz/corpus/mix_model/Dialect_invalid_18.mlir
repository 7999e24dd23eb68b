// expected-error @+1 {{expected '='}}
module attributes {t.r = #mix.resolved<activations f16 from layer>} {}
