// expected-error @+1 {{property 'accumulator' given twice}}
module attributes {t.r = #mix.resolved<activations = f16 from layer, accumulator = f32 from derived, accumulator = f32 from derived, output = f16 from layer>} {}
