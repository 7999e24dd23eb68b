// expected-note @+1 {{network declared here}}
mix.network @n precision(f32) (%x: tensor<4xf32>, %y: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'mix.return' op output #1 has type 'tensor<2xf32>', but the network declares 'tensor<4xf32>'}}
  mix.return %x, %y : tensor<4xf32>, tensor<2xf32>
}
