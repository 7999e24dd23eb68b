// expected-error @+1 {{i32 is only an accumulator precision}}
module attributes {t.r = #mix.resolved<activations = i32 from layer, accumulator = i32 from derived, output = f32 from derived>} {}
