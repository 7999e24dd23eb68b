// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --convert-mix-to-linalg

mix.network @external precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{external weight 'w' must be loaded before lowering (mixc --weights)}}
  // expected-error @+1 {{failed to legalize operation 'mix.weight' that was explicitly marked illegal}}
  %w = mix.weight external "w" : tensor<4x3xf32>
  %d = mix.dense %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  mix.return %d : tensor<2x3xf32>
}

// -----

mix.network @int8 precision(int8) (%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'mix.dense' op accumulates in i32; integer layers must be lowered by mix-quantize first}}
  // expected-error @+1 {{failed to legalize operation 'mix.dense' that was explicitly marked illegal}}
  %d = mix.dense %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  mix.return %d : tensor<2x3xf32>
}
