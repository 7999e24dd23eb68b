mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-note @+1 {{bias defined here}}
  %b = mix.weight dense<0.0> : tensor<8xf32>
  // expected-error @+1 {{'mix.dense' op expects bias of shape [4] (out_features), got [8]}}
  %0 = mix.dense %x, %w, %b : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<2x4xf32>
  mix.return
}
