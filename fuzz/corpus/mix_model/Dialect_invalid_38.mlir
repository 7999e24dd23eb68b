mix.network @n precision(f32) (%x: tensor<4xf32>) {
  mix.block () : () -> () {
    // expected-error @+1 {{'mix.return' op expects parent op 'mix.network'}}
    mix.return
  }
  mix.return
}
