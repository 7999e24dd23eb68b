mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.yield' op expects parent op 'mix.block'}}
  mix.yield
}
