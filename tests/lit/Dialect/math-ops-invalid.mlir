// Every verifier diagnostic of the elementwise math layers.
// RUN: mix-opt %s -split-input-file -verify-diagnostics

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.sigmoid' op result shape [5] differs from the input shape [4]}}
  %0 = mix.sigmoid %x : (tensor<4xf32>) -> tensor<5xf32>
  mix.return %x : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.hard_sigmoid' op alpha must be finite, but is nan}}
  %0 = mix.hard_sigmoid %x {alpha = 0x7FF8000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.hard_sigmoid' op beta must be finite, but is inf}}
  %0 = mix.hard_sigmoid %x {beta = 0x7FF0000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.leaky_relu' op alpha must be finite, but is -inf}}
  %0 = mix.leaky_relu %x {alpha = 0xFFF0000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.elu' op alpha must be finite, but is inf}}
  %0 = mix.elu %x {alpha = 0x7FF0000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.clip' op bounds must not be NaN}}
  %0 = mix.clip %x {min = 0x7FF8000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.clip' op min 6 is greater than max 0}}
  %0 = mix.clip %x {min = 6.0 : f64, max = 0.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4x3xf32>, %y: tensor<2xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'mix.pow' op operand shapes [4, 3] and [2] are not broadcastable}}
  %0 = mix.pow %x, %y : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<4x3xf32>
  mix.return %0 : tensor<4x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'mix.sub' op result shape [3] does not match the expected shape [4, 3]}}
  %0 = mix.sub %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  mix.return %x : tensor<4x3xf32>
}
