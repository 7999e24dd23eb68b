mix.network @n precision(f32) () {
  // expected-error @+1 {{expected string}}
  %0 = mix.weight external fc : tensor<4xf32>
  mix.return
}
