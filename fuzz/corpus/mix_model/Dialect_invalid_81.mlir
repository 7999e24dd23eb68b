// A weight passed in as a block argument has no defining op: no note.
mix.network @n precision(f32) (%x: tensor<2x8xf32>, %w: tensor<7x4xf32>) {
  // expected-error @+1 {{'mix.dense' op input features (8) do not match the weight's rows (7)}}
  %0 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<7x4xf32>) -> tensor<2x4xf32>
  mix.return
}
