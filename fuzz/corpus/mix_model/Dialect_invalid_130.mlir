mix.network @n precision(f32) (%x: tensor<1x64x8xf32>) {
  // expected-error @+1 {{'mix.global_avg_pool' op expects input of rank 4, got rank 3 [1, 64, 8]}}
  %0 = mix.global_avg_pool %x : (tensor<1x64x8xf32>) -> tensor<1x64xf32>
  mix.return
}
