mix.network @n precision(f32) (%x: tensor<8xf32>) {
  // expected-error @+1 {{'mix.relu' op activations precision int8<asymmetric, axis = 1> quantizes along axis 1, but the activations tensor has rank 1}}
  %0 = mix.relu %x precision(activations = int8<asymmetric, axis = 1>) : (tensor<8xf32>) -> tensor<8xf32>
  mix.return
}
