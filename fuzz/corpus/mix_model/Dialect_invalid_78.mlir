//===----------------------------------------------------------------------===//
// mix.dense
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<f32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op expects input of rank >= 1, got rank 0}}
  %0 = mix.dense %x, %w : (tensor<f32>, tensor<8x4xf32>) -> tensor<4xf32>
  mix.return
}
