mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op must have exactly one of inline data or an external reference}}
  %0 = "mix.weight"() <{ref = "w", value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  mix.return
}
