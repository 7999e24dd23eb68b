// expected-error @+1 {{a network decision must name its network}}
module attributes {t.d = #mix.decision<f32 from network>} {}
