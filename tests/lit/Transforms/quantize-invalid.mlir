// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-quantize

mix.network @external precision(int8) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight external "fc.weight" : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op int8 weight 'fc.weight' must be loaded before quantization (mixc --weights)}}
  %y = mix.dense %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @activations_only precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op quantizes only its activations (activations int8, weights f32); int8 layers need both in int8}}
  %y = mix.dense %x, %w precision(int8, weights = f32) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @axis precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op int8 weights are quantized per output channel (axis 1) or per tensor, not along axis 0}}
  %y = mix.dense %x, %w precision(int8, weights = int8<symmetric, axis = 0>) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @act_axis precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op activations are quantized per tensor, or per row (axis 0) for the [M, K] input of a dense or the lhs of a matmul; cannot use int8<symmetric, axis = 1> for its input [1, 2]}}
  %y = mix.dense %x, %w precision(int8, activations = int8<symmetric, axis = 1>) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @nan_weight precision(int8) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, 0x7FC00000], [1.0, 1.0]]> : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op cannot quantize its weights: quantize_f32: input element 1 (nan) is not finite}}
  %y = mix.dense %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @conv_per_row precision(f32) (%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %w = mix.weight dense<1.0> : tensor<1x1x2x2xf32>
  // expected-error @+1 {{'mix.conv2d' op activations are quantized per tensor, or per row (axis 0) for the [M, K] input of a dense or the lhs of a matmul; cannot use int8<symmetric, axis = 0> for its input [1, 1, 4, 4]}}
  %y = mix.conv2d %x, %w precision(int8, activations = int8<symmetric, axis = 0>) : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  mix.return %y : tensor<1x1x3x3xf32>
}

// -----

// An int8 lstm quantizes its weights at compile time, like a dense layer.
mix.network @lstm_external precision(int8) (%x: tensor<5x2x3xf32>) -> tensor<5x1x2x4xf32> {
  %w = mix.weight dense<0.125> : tensor<1x16x3xf32>
  %r = mix.weight external "lstm.r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op int8 weight 'lstm.r' must be loaded before quantization (mixc --weights)}}
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y#0 : tensor<5x1x2x4xf32>
}

// -----

mix.network @weights_only_external precision(f16) (%x: tensor<1x2xf16>) -> tensor<1x2xf16> {
  %w = mix.weight external "fc.weight" : tensor<2x2xf32>
  // expected-error @+1 {{'mix.dense' op int8 weight 'fc.weight' must be loaded before quantization (mixc --weights)}}
  %y = mix.dense %x, %w precision(weights = int8) : (tensor<1x2xf16>, tensor<2x2xf32>) -> tensor<1x2xf16>
  mix.return %y : tensor<1x2xf16>
}
