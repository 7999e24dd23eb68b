// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --convert-mix-to-linalg
//
// Each refusal is one error that says why; the conversion's "failed to
// legalize" after it is dropped (it would only repeat that it failed).

mix.network @external precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{external weight 'w' must be loaded before lowering (mixc --weights)}}
  %w = mix.weight external "w" : tensor<4x3xf32>
  %d = mix.dense %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  mix.return %d : tensor<2x3xf32>
}

// -----

mix.network @int8 precision(int8) (%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.dense' op accumulates in i32; integer layers must be lowered by mix-quantize first}}
  %d = mix.dense %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  mix.return %d : tensor<2x3xf32>
}
