mix.network @n precision(f32) (%ids: tensor<4xf32>) {
  %t = mix.weight external "t" : tensor<10x3xf32>
  // expected-error @+1 {{'mix.embedding' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = mix.embedding %ids, %t : (tensor<4xf32>, tensor<10x3xf32>) -> tensor<4x3xf32>
  mix.return
}
