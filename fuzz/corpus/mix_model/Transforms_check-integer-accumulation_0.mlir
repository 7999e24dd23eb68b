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
