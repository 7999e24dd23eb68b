// expected-error @+1 {{resolved precisions lack 'accumulator'}}
module attributes {t.r = #mix.resolved<activations = f16 from layer, output = f16 from layer>} {}
