mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op external weight reference cannot be empty}}
  %0 = mix.weight external "" : tensor<4xf32>
  mix.return
}
