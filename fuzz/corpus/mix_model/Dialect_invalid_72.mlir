mix.network @n precision(f32) (%x: tensor<?xf32>) {
  // expected-error @+1 {{'mix.relu' op operand #0 must be statically shaped tensor}}
  %0 = mix.relu %x : (tensor<?xf32>) -> tensor<?xf32>
  mix.return
}
