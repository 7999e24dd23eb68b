// op-precision-list: allow/deny lists per op kind, on the default properties
// (weights, activations, output) or on the listed ones.
// Without the policy file the model is clean.

// expected-note @+1 {{f32 inherited from network @n}}
mix.network @n precision(f32) (%img: tensor<1x2x4x4xf32>, %x: tensor<2x8xf32>) {
  %k = mix.weight external "k" : tensor<2x2x3x3xf32>
  // conv2d only allows int8 and f16: f32 weights, activations and output are
  // each reported; the accumulator is not in the default properties.
  // expected-error @+3 {{[op-precision-list] 'mix.conv2d' resolves its weights to f32, which the policy does not allow for op kind 'conv2d'}}
  // expected-error @+2 {{[op-precision-list] 'mix.conv2d' resolves its activations to f32, which the policy does not allow for op kind 'conv2d'}}
  // expected-error @+1 {{[op-precision-list] 'mix.conv2d' resolves its output to f32, which the policy does not allow for op kind 'conv2d'}}
  %0 = mix.conv2d %img, %k : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  // Allowed: f16 everywhere but the (unchecked) f32 accumulator.
  %1 = mix.conv2d %img, %k precision(f16) : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  // Allowed: int8 weights/activations; the derived f32 output is reported.
  // expected-error @+2 {{[op-precision-list] 'mix.conv2d' resolves its output to f32, which the policy does not allow for op kind 'conv2d'}}
  // expected-note @+1 {{f32 is the default accumulator/output for the layer's precisions, decided here}}
  %2 = mix.conv2d %img, %k precision(int8) : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  // softmax: only the output is checked.
  %3 = mix.softmax %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // expected-error @+2 {{[op-precision-list] 'mix.softmax' resolves its output to bf16, which the policy does not allow for op kind 'softmax'}}
  // expected-note @+1 {{bf16 set by a property override}}
  %4 = mix.softmax %x precision(output = bf16) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %w = mix.weight external "w" : tensor<8x4xf32>
  // dense: weights and accumulator are checked, activations are not.
  // expected-error @+2 {{[op-precision-list] 'mix.dense' resolves its weights to bf16, which the policy does not allow for op kind 'dense'}}
  // expected-note @+1 {{bf16 set by the layer's own precision}}
  %5 = mix.dense %x, %w precision(bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %6 = mix.dense %x, %w precision(weights = f16, activations = bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // expected-error @+2 {{[op-precision-list] 'mix.dense' resolves its accumulator to f64, which the policy does not allow for op kind 'dense'}}
  // expected-note @+1 {{f64 set by a property override}}
  %7 = mix.dense %x, %w precision(accumulator = f64) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // Kinds without a list are not checked.
  %8 = mix.relu %x precision(bf16) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.return
}
