mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // The type given for the bound value must be the value's type.
  // expected-error @+2 {{use of value '%x' expects different type than prior uses: 'tensor<4xf16>' vs 'tensor<4xf32>'}}
  // expected-note @-3 {{prior use here}}
  mix.block (%a = %x) : (tensor<4xf16>) -> () {
    mix.yield
  }
  mix.return
}
