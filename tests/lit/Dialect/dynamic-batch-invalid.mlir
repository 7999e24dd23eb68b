// RUN: mix-opt %s -split-input-file -verify-diagnostics
//
// A dynamic batch (docs/dialect.md, "Dynamic batch"): only the leading
// dimension may be `?`, every output of a network with one has it, and the
// layers that would combine the samples of a batch are errors.

// expected-error @+1 {{'mix.network' op input #0 has type 'tensor<4x?xf32>': only the leading (batch) dimension may be dynamic}}
mix.network @inner_input precision(f32) (%x: tensor<4x?xf32>) -> tensor<4x2xf32> {
  %c = mix.weight dense<0.0> : tensor<4x2xf32>
  mix.return %c : tensor<4x2xf32>
}

// -----

// expected-error @+1 {{'mix.network' op output #0 has type 'tensor<?x?xf32>': only the leading (batch) dimension may be dynamic}}
mix.network @inner_output precision(f32) (%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %r = mix.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %c = mix.reshape %r : (tensor<?x4xf32>) -> tensor<?x?xf32>
  mix.return %c : tensor<?x?xf32>
}

// -----

// expected-error @+1 {{'mix.network' op output #1 has type 'tensor<4xf32>' without the dynamic batch `?` of input #0: each sample of a batch is computed on its own, so every output must have the leading dimension `?`}}
mix.network @static_output precision(f32) (%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>) {
  %r = mix.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  mix.return %r, %y : tensor<?x4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'mix.network' op output #0 has type 'tensor<?x4xf32>' with a dynamic batch, but no input has one}}
mix.network @batch_from_nowhere precision(f32) (%x: tensor<2x4xf32>) -> tensor<?x4xf32> {
  mix.return %x : tensor<2x4xf32>
}

// -----

// A layer's activations: static but for the leading dimension.
mix.network @layer_inner precision(f32) (%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.relu' op result #0 must be tensor with static dimensions (the leading, batch dimension may be `?`) of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<?x?xf32>'}}
  %r = mix.relu %x : (tensor<?x4xf32>) -> tensor<?x?xf32>
  mix.return %r : tensor<?x?xf32>
}

// -----

mix.network @softmax_batch precision(f32) (%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.softmax' op cannot take the dynamic batch of its input [?, 4]: axis 0 normalizes across the batch, but each sample of a dynamic batch is computed on its own}}
  %s = mix.softmax %x {axis = 0 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  mix.return %s : tensor<?x4xf32>
}

// -----

mix.network @softmax_negative_axis precision(f32) (%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.softmax' op cannot take the dynamic batch of its input [?, 4]: axis 0 normalizes across the batch}}
  %s = mix.softmax %x {axis = -2 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  mix.return %s : tensor<?x4xf32>
}

// -----

mix.network @flatten_batch precision(f32) (%x: tensor<?x2x2xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'mix.flatten' op cannot take the dynamic batch of its input [?, 2, 2]: start_dim 0 folds the batch into one dimension (use start_dim >= 1), but each sample of a dynamic batch is computed on its own}}
  %f = mix.flatten %x {start_dim = 0 : i64} : (tensor<?x2x2xf32>) -> tensor<?xf32>
  mix.return %f : tensor<?xf32>
}

// -----

mix.network @reshape_adds_batch precision(f32) (%x: tensor<?x4xf32>, %y: tensor<2x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.reshape' op cannot reshape [2, 4] into [?, 8]: the dynamic batch must stay the leading dimension of both}}
  %r = mix.reshape %y : (tensor<2x4xf32>) -> tensor<?x8xf32>
  mix.return %x : tensor<?x4xf32>
}

// -----

mix.network @reshape_to_static precision(f32) (%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.reshape' op cannot reshape [?, 4] into [1, 4]: the dynamic batch must stay the leading dimension of both}}
  %r = mix.reshape %x : (tensor<?x4xf32>) -> tensor<1x4xf32>
  mix.return %x : tensor<?x4xf32>
}

// -----

mix.network @reshape_sample_size precision(f32) (%x: tensor<?x4xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'mix.reshape' op cannot reshape [?, 4] (4 elements per sample) into [?, 3] (3 elements per sample)}}
  %r = mix.reshape %x : (tensor<?x4xf32>) -> tensor<?x3xf32>
  mix.return %r : tensor<?x3xf32>
}

// -----

mix.network @cross_entropy precision(f32) (%x: tensor<?x4xf32>, %l: tensor<?xi32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.cross_entropy_loss' op cannot take the dynamic batch of its logits [?, 4]: a loss averages over the batch, but each sample of a dynamic batch is computed on its own}}
  %loss = mix.cross_entropy_loss %x, %l : (tensor<?x4xf32>, tensor<?xi32>) -> tensor<f32>
  mix.return %x : tensor<?x4xf32>
}

// -----

mix.network @cross_entropy_labels precision(f32) (%x: tensor<2x4xf32>, %l: tensor<?xi32>) -> tensor<?xi32> {
  // expected-error @+1 {{'mix.cross_entropy_loss' op cannot take the dynamic batch of its labels [?]: a loss averages over the batch}}
  %loss = mix.cross_entropy_loss %x, %l : (tensor<2x4xf32>, tensor<?xi32>) -> tensor<f32>
  mix.return %l : tensor<?xi32>
}

// -----

mix.network @mse precision(f32) (%x: tensor<?x4xf32>, %t: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.mse_loss' op cannot take the dynamic batch of its prediction [?, 4]: a loss averages over the batch}}
  %loss = mix.mse_loss %x, %t : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<f32>
  mix.return %x : tensor<?x4xf32>
}

// -----

mix.network @mse_target precision(f32) (%x: tensor<2x4xf32>, %t: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.mse_loss' op cannot take the dynamic batch of its target [?, 4]: a loss averages over the batch}}
  %loss = mix.mse_loss %x, %t : (tensor<2x4xf32>, tensor<?x4xf32>) -> tensor<f32>
  mix.return %t : tensor<?x4xf32>
}

// -----

// A rank-1 input whose only dimension is the batch has no feature
// dimension for a dense layer: the message spells the batch `?`.
mix.network @dense_features precision(f32) (%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-note @+1 {{weight defined here}}
  %w = mix.weight dense<1.0> : tensor<4x2xf32>
  // expected-error @+1 {{'mix.dense' op input features (?) do not match the weight's rows (4)}}
  %d = mix.dense %x, %w : (tensor<?xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  mix.return %x : tensor<?xf32>
}

// -----

// A broadcast of the batch against a static size other than 1.
mix.network @broadcast precision(f32) (%x: tensor<?x4xf32>, %y: tensor<3x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'mix.add' op operand shapes [?, 4] and [3, 4] are not broadcastable}}
  %a = mix.add %x, %y : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  mix.return %a : tensor<?x4xf32>
}
