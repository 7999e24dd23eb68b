// expected-error @+1 {{expected valid '@'-identifier for symbol name}}
mix.network precision(f32) (%x: tensor<4xf32>) {
  mix.return
}
