mix.network @n precision(f32) (%x: tensor<1x16x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects 'padding' to have 4 values, got 2}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  mix.return
}
