// expected-error @+1 {{only network and block decisions name an origin, not 'layer'}}
module attributes {t.d = #mix.decision<f16 from layer @x>} {}
