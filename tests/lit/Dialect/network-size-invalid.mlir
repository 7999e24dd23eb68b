// RUN: mix-opt %s -split-input-file -verify-diagnostics
//
// Every tensor of a network must have a size in bytes that int64 can count
// (per sample, for a dynamic batch): the memory plan, the header and the
// lowering compute it. 2^62 x 4 f32 values are 2^66 bytes. The network
// checks its values after its ops are verified, so an op's own diagnostic
// about its sizes comes first.

// expected-error @+1 {{'mix.network' op input #0 has type 'tensor<4611686018427387904x4xf32>': its size in bytes overflows int64}}
mix.network @huge_input precision(f32) (%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  %y = mix.relu %x : (tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32>
  mix.return %y : tensor<4611686018427387904x4xf32>
}

// -----

// Per sample: 2^61 x 4 f16 values are 2^64 bytes.
// expected-error @+1 {{'mix.network' op input #0 has type 'tensor<?x2305843009213693952x4xf16>': its size in bytes overflows int64}}
mix.network @huge_sample precision(f16) (%x: tensor<?x2305843009213693952x4xf16>) -> tensor<?x2305843009213693952x4xf16> {
  %y = mix.relu %x : (tensor<?x2305843009213693952x4xf16>) -> tensor<?x2305843009213693952x4xf16>
  mix.return %y : tensor<?x2305843009213693952x4xf16>
}

// -----

// An op's own rule speaks first.
mix.network @huge_inside precision(f32) (%x: tensor<1xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'mix.expand' op the size of the result [2305843009213693952, 2] overflows}}
  %e = mix.expand %x : (tensor<1xf32>) -> tensor<2305843009213693952x2xf32>
  %s = mix.reduce_sum %e {axes = array<i64: 0, 1>} : (tensor<2305843009213693952x2xf32>) -> tensor<f32>
  %y = mix.reshape %s : (tensor<f32>) -> tensor<1xf32>
  mix.return %y : tensor<1xf32>
}

// -----

// A reshape whose element count overflows is refused by the reshape
// (without signed overflow in the verifier).
mix.network @huge_reshape precision(f16) (%x: tensor<?x4xf16>) -> tensor<?x4xf16> {
  // expected-error @+1 {{'mix.reshape' op cannot reshape [?, 4] (4 elements per sample) into [?, 2305843009213693952, 8] (a count of elements per sample that overflows int64)}}
  %y = mix.reshape %x : (tensor<?x4xf16>) -> tensor<?x2305843009213693952x8xf16>
  %z = mix.reshape %y : (tensor<?x2305843009213693952x8xf16>) -> tensor<?x4xf16>
  mix.return %z : tensor<?x4xf16>
}

// -----

// The largest countable sizes are accepted: 2^60 f32 values are 2^62 bytes.
mix.network @big_ok precision(f32) (%x: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  %y = mix.relu %x : (tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32>
  mix.return %y : tensor<1152921504606846976xf32>
}
