mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = mix.weight external "w" : tensor<?xf32>
  mix.return
}
