// Every verifier diagnostic of log_softmax, layer_norm's axis, instance_norm
// and group_norm.
// RUN: mix-opt %s -split-input-file -verify-diagnostics

mix.network @n precision(f32) (%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mix.log_softmax' op axis 2 is out of range for rank 2}}
  %0 = mix.log_softmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mix.log_softmax' op axis -3 is out of range for rank 2}}
  %0 = mix.log_softmax %x {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'mix.log_softmax' op cannot take the dynamic batch of its input [?, 3]: axis 0 normalizes across the batch}}
  %0 = mix.log_softmax %x {axis = 0 : i64} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'mix.log_softmax' op result shape [3, 2] differs from the input shape [2, 3]}}
  %0 = mix.log_softmax %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x4xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // expected-error @+1 {{'mix.layer_norm' op axis 3 is out of range for rank 3}}
  %0 = mix.layer_norm %x, %p, %p {axis = 3 : i64} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x4xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // expected-error @+1 {{'mix.layer_norm' op axis -4 is out of range for rank 3}}
  %0 = mix.layer_norm %x, %p, %p {axis = -4 : i64} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<?x4xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // expected-error @+1 {{'mix.layer_norm' op cannot take the dynamic batch of its input [?, 4]: axis 0 normalizes across the batch}}
  %0 = mix.layer_norm %x, %p, %p {axis = -2 : i64} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x4xf32>) {
  %b = mix.weight external "b" : tensor<3x4xf32>
  // expected-note @+1 {{gamma defined here}}
  %g = mix.weight external "g" : tensor<12xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects gamma of shape [3, 4] (the normalized dimensions from axis 1), got [12]}}
  %0 = mix.layer_norm %x, %g, %b {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<12xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x4xf32>) {
  %g = mix.weight external "g" : tensor<3x4xf32>
  // expected-note @+1 {{beta defined here}}
  %b = mix.weight external "b" : tensor<4xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects beta of shape [3, 4] (the normalized dimensions from axis 1), got [4]}}
  %0 = mix.layer_norm %x, %g, %b {axis = -2 : i64} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x4xf32>) {
  %p = mix.weight external "p" : tensor<3x4xf32>
  // expected-error @+1 {{'mix.layer_norm' op expects epsilon > 0}}
  %0 = mix.layer_norm %x, %p, %p {axis = 1 : i64, epsilon = 0.0 : f64} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) {
  %p = mix.weight external "p" : tensor<3xf32>
  // expected-error @+1 {{'mix.instance_norm' op expects input of rank >= 3, got rank 2}}
  %0 = mix.instance_norm %x, %p, %p : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x5xf32>) {
  %b = mix.weight external "b" : tensor<3xf32>
  // expected-note @+1 {{scale defined here}}
  %s = mix.weight external "s" : tensor<5xf32>
  // expected-error @+1 {{'mix.instance_norm' op expects scale of shape [3] (channels), got [5]}}
  %0 = mix.instance_norm %x, %s, %b : (tensor<2x3x5xf32>, tensor<5xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x5xf32>) {
  %s = mix.weight external "s" : tensor<3xf32>
  // expected-note @+1 {{bias defined here}}
  %b = mix.weight external "b" : tensor<1x3xf32>
  // expected-error @+1 {{'mix.instance_norm' op expects bias of shape [3] (channels), got [1, 3]}}
  %0 = mix.instance_norm %x, %s, %b : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<2x3x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x5xf32>) {
  %p = mix.weight external "p" : tensor<3xf32>
  // expected-error @+1 {{'mix.instance_norm' op expects epsilon > 0}}
  %0 = mix.instance_norm %x, %p, %p {epsilon = -1.0 : f64} : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3x5xf32>) {
  %p = mix.weight external "p" : tensor<3xf32>
  // expected-error @+1 {{'mix.instance_norm' op result shape [2, 3, 4] differs from the input shape [2, 3, 5]}}
  %0 = mix.instance_norm %x, %p, %p : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<6xf32>) {
  %p = mix.weight external "p" : tensor<6xf32>
  // expected-error @+1 {{'mix.group_norm' op expects input of rank >= 2, got rank 1}}
  %0 = mix.group_norm %x, %p, %p {num_groups = 2 : i64} : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x6x5xf32>) {
  %p = mix.weight external "p" : tensor<6xf32>
  // expected-error @+1 {{'mix.group_norm' op num_groups 4 must be positive and divide the 6 channels}}
  %0 = mix.group_norm %x, %p, %p {num_groups = 4 : i64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x6x5xf32>) {
  %p = mix.weight external "p" : tensor<6xf32>
  // expected-error @+1 {{'mix.group_norm' op num_groups 0 must be positive and divide the 6 channels}}
  %0 = mix.group_norm %x, %p, %p {num_groups = 0 : i64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x6x5xf32>) {
  %b = mix.weight external "b" : tensor<6xf32>
  // expected-note @+1 {{scale defined here}}
  %s = mix.weight external "s" : tensor<3xf32>
  // expected-error @+1 {{'mix.group_norm' op expects scale of shape [6] (channels), got [3]}}
  %0 = mix.group_norm %x, %s, %b {num_groups = 3 : i64} : (tensor<2x6x5xf32>, tensor<3xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x6x5xf32>) {
  %s = mix.weight external "s" : tensor<6xf32>
  // expected-note @+1 {{bias defined here}}
  %b = mix.weight external "b" : tensor<2xf32>
  // expected-error @+1 {{'mix.group_norm' op expects bias of shape [6] (channels), got [2]}}
  %0 = mix.group_norm %x, %s, %b {num_groups = 2 : i64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<2xf32>) -> tensor<2x6x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x6x5xf32>) {
  %p = mix.weight external "p" : tensor<6xf32>
  // expected-error @+1 {{'mix.group_norm' op expects epsilon > 0}}
  %0 = mix.group_norm %x, %p, %p {num_groups = 2 : i64, epsilon = 0.0 : f64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x6x5xf32>) {
  %p = mix.weight external "p" : tensor<6xf32>
  // expected-error @+1 {{'mix.group_norm' op result shape [2, 6] differs from the input shape [2, 6, 5]}}
  %0 = mix.group_norm %x, %p, %p {num_groups = 2 : i64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x6x5xf32>) {
  %p = mix.weight external "p" : tensor<6xf32>
  // expected-error @+1 {{'mix.group_norm' op requires attribute 'num_groups'}}
  %0 = mix.group_norm %x, %p, %p : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  mix.return
}
