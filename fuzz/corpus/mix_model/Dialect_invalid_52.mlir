//===----------------------------------------------------------------------===//
// mix.weight
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) () {
  // expected-error @+1 {{expected inline tensor data (e.g. dense<...> : tensor<...>) or 'external "name"'}}
  %0 = mix.weight 1.0 : f32
  mix.return
}
