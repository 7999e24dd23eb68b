mix.network @n precision(f32) () {
  // expected-error @+1 {{'mix.weight' op inline data of type 'tensor<4xf32>' does not match the result type 'tensor<2x2xf32>'}}
  %0 = "mix.weight"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<2x2xf32>
  mix.return
}
