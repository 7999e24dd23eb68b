//===----------------------------------------------------------------------===//
// mix.softmax, mix.relu, mix.gelu, mix.add, mix.mul
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'mix.softmax' op axis 2 is out of range for rank 2}}
  %0 = mix.softmax %x {axis = 2 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  mix.return
}
