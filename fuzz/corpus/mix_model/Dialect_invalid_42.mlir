mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{block binds 0 value(s) but its type has 1 input(s)}}
  mix.block () : (tensor<4xf32>) -> () {
    mix.yield
  }
  mix.return
}
