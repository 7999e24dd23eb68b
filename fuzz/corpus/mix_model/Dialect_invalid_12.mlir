// expected-error @+1 {{expected a precision source (network, block, layer, property, derived), got 'scope'}}
module attributes {t.d = #mix.decision<f16 from scope @b>} {}
