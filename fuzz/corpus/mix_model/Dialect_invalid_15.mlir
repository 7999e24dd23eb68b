// expected-error @+1 {{resolved precisions lack 'activations'}}
module attributes {t.r = #mix.resolved<weights = f16 from layer, accumulator = f32 from derived, output = f16 from layer>} {}
