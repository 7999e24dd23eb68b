// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-check-int8-accumulation

// Symmetric x symmetric: 127 * 127 = 16129 per product; 133144 products fit
// (2147479576), 133145 do not (2147495705).
mix.network @sym_ok precision(int8) (%x: tensor<1x133144xf32>) -> tensor<1x1xf32> {
  %w = mix.weight external "w" : tensor<133144x1xf32>
  %d = mix.dense %x, %w : (tensor<1x133144xf32>, tensor<133144x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}

// -----

// expected-note @+1 {{int8 inherited from network @sym_big}}
mix.network @sym_big precision(int8) (%x: tensor<1x133145xf32>) -> tensor<1x1xf32> {
  %w = mix.weight external "w" : tensor<133145x1xf32>
  // expected-error @+1 {{'mix.dense' op int8 accumulation can overflow int32: K = 133145 products of at most 127 x 127 sum to 2147495705 > 2147483647; at most 133144 products per i32 sum are safe (split K or use a float precision)}}
  %d = mix.dense %x, %w : (tensor<1x133145xf32>, tensor<133145x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}

// -----

// Asymmetric activations (|a - za| <= 255) x symmetric weights: 66311 fit.
mix.network @asym_ok precision(f32) (%x: tensor<1x66311xf32>) -> tensor<1x1xf32> {
  %w = mix.weight external "w" : tensor<66311x1xf32>
  %d = mix.dense %x, %w precision(int8, activations = int8<asymmetric>) : (tensor<1x66311xf32>, tensor<66311x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}

// -----

mix.network @asym_big precision(f32) (%x: tensor<1x66312xf32>) -> tensor<1x1xf32> {
  %w = mix.weight external "w" : tensor<66312x1xf32>
  // expected-error @+1 {{K = 66312 products of at most 255 x 127 sum to 2147514120 > 2147483647; at most 66311 products}}
  %d = mix.dense %x, %w precision(int8, activations = int8<asymmetric>) : (tensor<1x66312xf32>, tensor<66312x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}

// -----

// Both asymmetric: 255 * 255 = 65025 per product; K = 33026 is one too many.
// expected-note @+1 {{int8 inherited from network @matmul_big}}
mix.network @matmul_big precision(int8<asymmetric>) (%a: tensor<1x33026xf32>, %b: tensor<33026x1xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{K = 33026 products of at most 255 x 255 sum to 2147515650 > 2147483647; at most 33025 products}}
  %c = mix.matmul %a, %b : (tensor<1x33026xf32>, tensor<33026x1xf32>) -> tensor<1x1xf32>
  mix.return %c : tensor<1x1xf32>
}

// -----

// conv2d: K = C/groups * KH * KW = 2048 * 9 * 9 = 165888 > 133144.
mix.network @conv_big precision(f32) (%x: tensor<1x2048x9x9xf32>) -> tensor<1x1x1x1xf32> {
  %w = mix.weight external "w" : tensor<1x2048x9x9xf32>
  // expected-error @+1 {{K = 165888 products of at most 127 x 127}}
  %c = mix.conv2d %x, %w precision(int8) : (tensor<1x2048x9x9xf32>, tensor<1x2048x9x9xf32>) -> tensor<1x1x1x1xf32>
  mix.return %c : tensor<1x1x1x1xf32>
}

// -----

// int8 weights with float activations (weight-only quantization) accumulate
// in float: nothing to prove. The edge example's int8 convolutions are far
// below the bound.
mix.network @weight_only precision(f32) (%x: tensor<1x200000xf32>) -> tensor<1x1xf32> {
  %w = mix.weight external "w" : tensor<200000x1xf32>
  %d = mix.dense %x, %w precision(weights = int8) : (tensor<1x200000xf32>, tensor<200000x1xf32>) -> tensor<1x1xf32>
  mix.return %d : tensor<1x1xf32>
}

// -----

// An int8 gru: K is the larger of the input size (its input GEMM) and the
// hidden size (its recurrent GEMMs): here I = 133145, one product too many.
// expected-note @+1 {{int8 inherited from network @gru_big}}
mix.network @gru_big precision(int8) (%x: tensor<1x1x133145xf32>) -> tensor<1x1x1x1xf32> {
  %w = mix.weight external "w" : tensor<1x3x133145xf32>
  %r = mix.weight external "r" : tensor<1x3x1xf32>
  // expected-error @+1 {{'mix.gru' op int8 accumulation can overflow int32: K = 133145 products of at most 127 x 127 sum to 2147495705 > 2147483647; at most 133144 products per i32 sum are safe (split K or use a float precision)}}
  %y:2 = mix.gru %x, %w, %r : (tensor<1x1x133145xf32>, tensor<1x3x133145xf32>, tensor<1x3x1xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1xf32>)
  mix.return %y#0 : tensor<1x1x1x1xf32>
}
