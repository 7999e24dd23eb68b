mix.network @n precision(f32) (%x: tensor<2x5x64xf32>) {
  %g = mix.weight external "g" : tensor<64xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects epsilon > 0}}
  %0 = mix.layer_norm %x, %g, %g {epsilon = -1.0e-5 : f64} : (tensor<2x5x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  mix.return
}
