//===----------------------------------------------------------------------===//
// mix.reshape, mix.flatten
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'mix.reshape' op cannot reshape [2, 8] (16 elements) into [4, 5] (20 elements)}}
  %0 = mix.reshape %x : (tensor<2x8xf32>) -> tensor<4x5xf32>
  mix.return
}
