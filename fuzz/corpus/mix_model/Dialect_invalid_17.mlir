// expected-error @+1 {{resolved precisions lack 'output'}}
module attributes {t.r = #mix.resolved<activations = f16 from layer, accumulator = f32 from derived>} {}
