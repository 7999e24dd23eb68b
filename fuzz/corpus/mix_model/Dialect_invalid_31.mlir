// expected-error @+1 {{'mix.network' op precision cannot be i32 (i32 is only an accumulator precision)}}
mix.network @n precision(i32) (%x: tensor<4xf32>) {
  mix.return
}
