// expected-note @+1 {{network declared here}}
mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.return' op returns 2 value(s), but the network declares 1 output(s)}}
  mix.return %x, %x : tensor<4xf32>, tensor<4xf32>
}
