//===----------------------------------------------------------------------===//
// int8-non-gemm-layer (error)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<2x4xf32>, %ids: tensor<2xi32>, %img: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{[int8-non-gemm-layer] 'mix.relu' resolves its activations to int8, but int8 is only for GEMM-like layers (dense, matmul, conv2d, attention, lstm, gru)}}
  // expected-note @+1 {{int8 set by the layer's own precision}}
  %0 = mix.relu %x precision(int8) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %e = mix.weight external "e" : tensor<10x4xf32>
  // embedding has weights but is not GEMM-like; one finding per layer.
  // expected-error @+2 {{[int8-non-gemm-layer] 'mix.embedding' resolves its weights to int8, but int8 is only for GEMM-like layers}}
  // expected-note @+1 {{int8 set by a property override}}
  %1 = mix.embedding %ids, %e precision(weights = int8) : (tensor<2xi32>, tensor<10x4xf32>) -> tensor<2x4xf32>
  // An int8 output alone is enough.
  // expected-error @+2 {{[int8-non-gemm-layer] 'mix.max_pool2d' resolves its output to int8, but int8 is only for GEMM-like layers}}
  // expected-note @+1 {{int8 set by a property override}}
  %2 = mix.max_pool2d %img precision(output = int8) {kernel = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  mix.return
}
