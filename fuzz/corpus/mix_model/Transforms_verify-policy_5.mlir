// int8 on a normalization layer: activations and the derived i32
// accumulator are both below f32, and int8 is not for unweighted ops.
mix.network @n precision(f32) (%x: tensor<1x4x2x2xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // expected-error @+5 {{[sensitive-op-precision] 'mix.batch_norm' computes in int8 (activations); normalization layers must compute in f32 or wider}}
  // expected-error @+4 {{[sensitive-op-precision] 'mix.batch_norm' computes in i32 (accumulator); normalization layers must compute in f32 or wider}}
  // expected-error @+3 {{[int8-non-gemm-layer] 'mix.batch_norm' resolves its weights to int8, but int8 is only for GEMM-like layers (dense, matmul, conv2d, attention, lstm, gru)}}
  // expected-note @+2 {{int8 set by the layer's own precision}}
  // expected-note @+1 {{i32 is the default accumulator/output for the layer's precisions, decided here}}
  %0 = mix.batch_norm %x, %p, %p, %p, %p precision(int8) : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  mix.return
}
