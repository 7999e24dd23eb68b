// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-check-int8-accumulation
// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --convert-mix-to-linalg -o /dev/null

// The integer ops of mix-quantize get the int32 proof too, from their
// operands, both in mix-check-int8-accumulation and before the lowering
// emits any code: whatever produced them, no code that can wrap is emitted.

// Asymmetric input (|x - zx| <= 255) against constant weights 127 with zero
// point -128 (|w - zw| = 255 exactly): 40000 * 65025 > 2^31 - 1.
mix.network @overflow precision(f32) (%x: tensor<1x40000xf32>) -> tensor<1x1xf32> {
  %q, %s, %z = mix.quantize %x asymmetric : tensor<1x40000xf32> -> tensor<1x40000xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<127> : tensor<40000x1xi8>
  %ws = mix.weight dense<1.0> : tensor<1xf32>
  %wz = mix.weight dense<-128> : tensor<1xi32>
  // expected-error @+1 {{'mix.qdense' op int8 accumulation can overflow int32: 40000 products per i32 sum (K = 40000) of at most 255 x 255 sum to 2601000000 > 2147483647; at most 33025 are safe (k_chunk)}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<1x40000xi8>, tensor<f32>, tensor<i32>, tensor<40000x1xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x1xf32>
  mix.return %y : tensor<1x1xf32>
}

// -----

// Split into pieces of 33025 products: each fits.
mix.network @split precision(f32) (%x: tensor<1x40000xf32>) -> tensor<1x1xf32> {
  %q, %s, %z = mix.quantize %x asymmetric : tensor<1x40000xf32> -> tensor<1x40000xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<127> : tensor<40000x1xi8>
  %ws = mix.weight dense<1.0> : tensor<1xf32>
  %wz = mix.weight dense<-128> : tensor<1xi32>
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz {k_chunk = 33025 : i64} : (tensor<1x40000xi8>, tensor<f32>, tensor<i32>, tensor<40000x1xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x1xf32>
  mix.return %y : tensor<1x1xf32>
}

// -----

// The same weights with zero point 0: |w| = 127 exactly, so 40000 * 255 * 127
// = 1295400000 fits without a split.
mix.network @exact_weights precision(f32) (%x: tensor<1x40000xf32>) -> tensor<1x1xf32> {
  %q, %s, %z = mix.quantize %x asymmetric : tensor<1x40000xf32> -> tensor<1x40000xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<127> : tensor<40000x1xi8>
  %ws = mix.weight dense<1.0> : tensor<1xf32>
  %wz = mix.weight dense<0> : tensor<1xi32>
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<1x40000xi8>, tensor<f32>, tensor<i32>, tensor<40000x1xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x1xf32>
  mix.return %y : tensor<1x1xf32>
}

// -----

// A zero point passed in from outside could be any i32: nothing is proven.
mix.network @unknown_zero_point precision(f32) (%q: tensor<1x4xi8>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<1> : tensor<4x1xi8>
  %ws = mix.weight dense<1.0> : tensor<1xf32>
  %wz = mix.weight dense<0> : tensor<1xi32>
  // expected-error @+1 {{'mix.qdense' op cannot prove that its i32 sums fit: a zero point is neither produced by mix.quantize nor a constant}}
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz : (tensor<1x4xi8>, tensor<f32>, tensor<i32>, tensor<4x1xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x1xf32>
  mix.return %y : tensor<1x1xf32>
}
