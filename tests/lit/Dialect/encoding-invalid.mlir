// RUN: mix-opt %s -split-input-file -verify-diagnostics
//
// Tensor encodings mean nothing to mix and the lowering cannot keep them:
// the verifier of mix.network rejects the first value that has one (they
// passed mix-lint and failed in mixc with an internal linalg.generic error).

// expected-error @+1 {{'mix.network' op input #0 has type 'tensor<4xf32, "sparse">': tensor encodings are not supported}}
mix.network @input precision(f32) (%x: tensor<4xf32, "sparse">) -> tensor<4xf32> {
  %r = mix.relu %x : (tensor<4xf32, "sparse">) -> tensor<4xf32>
  mix.return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{'mix.network' op output #0 has type 'tensor<4xf32, "sparse">': tensor encodings are not supported}}
mix.network @output precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32, "sparse"> {
  %r = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32, "sparse">
  mix.return %r : tensor<4xf32, "sparse">
}

// -----

mix.network @result precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.weight' op result #0 has type 'tensor<4xf32, 1 : i64>': tensor encodings are not supported}}
  %w = mix.weight dense<1.0> : tensor<4xf32, 1>
  %r = mix.add %x, %w : (tensor<4xf32>, tensor<4xf32, 1>) -> tensor<4xf32>
  mix.return %r : tensor<4xf32>
}
