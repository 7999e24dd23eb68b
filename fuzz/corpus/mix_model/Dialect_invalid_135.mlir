mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects 'strides' to have 2 values, got 4}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2, 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}
