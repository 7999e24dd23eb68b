// expected-error @+1 {{the accumulator cannot be int8}}
module attributes {t.r = #mix.resolved<activations = int8 from layer, accumulator = int8 from derived, output = f32 from derived>} {}
