mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.softmax' op axis -3 is out of range for rank 2}}
  %0 = mix.softmax %x {axis = -3 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  mix.return
}
