mix.network @n precision(f32) (%t: tensor<2x4xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // A layer precision: the note points at the layer itself.
  // expected-error @+2 {{[sensitive-op-precision] 'mix.layer_norm' computes in bf16 (activations); normalization layers must compute in f32 or wider}}
  // expected-note @+1 {{bf16 set by the layer's own precision}}
  %0 = mix.layer_norm %t, %p, %p precision(bf16) : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  mix.return
}
