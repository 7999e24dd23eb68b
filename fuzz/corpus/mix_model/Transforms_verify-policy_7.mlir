mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-note @+1 {{int8<asymmetric> inherited from block @q}}
  mix.block @q precision(int8<asymmetric>) (%a = %x) : (tensor<2x4xf32>) -> () {
    // GEMM-like layers may be int8.
    %w = mix.weight external "w" : tensor<4x4xf32>
    %0 = mix.dense %a, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %1 = mix.matmul %a, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    // expected-error @+1 {{[int8-non-gemm-layer] 'mix.add' resolves its activations to int8}}
    %2 = mix.add %0, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    // expected-error @+1 {{[int8-non-gemm-layer] 'mix.reshape' resolves its activations to int8}}
    %3 = mix.reshape %2 : (tensor<2x4xf32>) -> tensor<8xf32>
    // Overriding to a float is the fix.
    %4 = mix.gelu %2 precision(f32) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  mix.return
}
