mix.network @n precision(f32) (%x: tensor<1x64x8x8xf32>) {
  // expected-error @+1 {{'mix.global_avg_pool' op result shape [1, 64, 1, 1] does not match the expected shape [1, 64]}}
  %0 = mix.global_avg_pool %x : (tensor<1x64x8x8xf32>) -> tensor<1x64x1x1xf32>
  mix.return
}
