// expected-error @+1 {{unknown precision property 'bias'}}
module attributes {t.r = #mix.resolved<bias = f16 from layer, activations = f16 from layer, accumulator = f32 from derived, output = f16 from layer>} {}
