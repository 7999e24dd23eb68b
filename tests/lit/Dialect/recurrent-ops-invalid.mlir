// Every verifier diagnostic of the gating and recurrent layers.
// RUN: mix-opt %s -split-input-file -verify-diagnostics

mix.network @n precision(f32) (%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'mix.glu' op expects input of rank >= 1, got rank 0}}
  %0 = mix.glu %x : (tensor<f32>) -> tensor<f32>
  mix.return %x : tensor<f32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'mix.glu' op axis 2 is out of range for rank 2}}
  %0 = mix.glu %x {axis = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  mix.return %x : tensor<4x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'mix.glu' op axis -3 is out of range for rank 2}}
  %0 = mix.glu %x {axis = -3 : i64} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  mix.return %x : tensor<4x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'mix.glu' op cannot split the dynamic batch of its input [?, 8]: each sample of a dynamic batch is computed on its own}}
  %0 = mix.glu %x {axis = 0 : i64} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  mix.return %x : tensor<?x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4x7xf32>) -> tensor<4x7xf32> {
  // expected-error @+1 {{'mix.glu' op splits axis 1 of its input [4, 7] into two halves, but 7 is odd}}
  %0 = mix.glu %x : (tensor<4x7xf32>) -> tensor<4x3xf32>
  mix.return %x : tensor<4x7xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'mix.glu' op result shape [2, 8] should be [4, 4] (the input with axis 1 halved)}}
  %0 = mix.glu %x : (tensor<4x8xf32>) -> tensor<2x8xf32>
  mix.return %x : tensor<4x8xf32>
}
