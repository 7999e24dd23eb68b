// expected-error @+1 {{expected a precision: f64, f32, f16, bf16, int8 or i32}}
mix.network @n precision() (%x: tensor<4xf32>) {
  mix.return
}
