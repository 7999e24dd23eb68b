// Every verifier diagnostic of mix.attention's biases and mask, and of
// mix.attention_core's mask (the shared mask check).
// RUN: mix-opt %s -split-input-file -verify-diagnostics

mix.network @n precision(f32) (%x: tensor<2x4x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{bq defined here}}
  %b = mix.weight external "b" : tensor<4xf32>
  // expected-error @+1 {{'mix.attention' op expects bq of shape [8] (embedding), got [4]}}
  %0 = mix.attention %x, %w, %w, %w, %w bq(%b) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  %b = mix.weight external "b" : tensor<8xf32>
  // expected-note @+1 {{bo defined here}}
  %c = mix.weight external "c" : tensor<1x8xf32>
  // expected-error @+1 {{'mix.attention' op expects bo of shape [8] (embedding), got [1, 8]}}
  %0 = mix.attention %x, %w, %w, %w, %w bq(%b) bk(%b) bv(%b) bo(%c) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x8xf32>) -> tensor<2x4x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4x8xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-note @+1 {{mask defined here}}
  %m = mix.weight external "m" : tensor<4xf32>
  // expected-error @+1 {{'mix.attention' op expects mask of rank 2, 3 or 4 (broadcast to the scores [B, H, S, S]), got rank 1 [4]}}
  %0 = mix.attention %x, %w, %w, %w, %w mask(%m) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4x8xf32>, %m: tensor<2x1x4x5xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op expects mask broadcastable to the scores [B, H, S, S] = [2, 2, 4, 4], but its keys dimension is 5 in [2, 1, 4, 5]}}
  %0 = mix.attention %x, %w, %w, %w, %w mask(%m) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<2x1x4x5xf32>) -> tensor<2x4x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4x8xf32>, %m: tensor<3x4x4xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op expects mask broadcastable to the scores [B, H, S, S] = [2, 2, 4, 4], but its batch dimension is 3 in [3, 4, 4]}}
  %0 = mix.attention %x, %w, %w, %w, %w mask(%m) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<3x4x4xf32>) -> tensor<2x4x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4x8xf32>, %m: tensor<1x4x4x4xf32>) {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op expects mask broadcastable to the scores [B, H, S, S] = [2, 2, 4, 4], but its heads dimension is 4 in [1, 4, 4, 4]}}
  %0 = mix.attention %x, %w, %w, %w, %w mask(%m) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<2x4x8xf32>
  mix.return
}

// -----

// A dynamic batch: the mask's batch may be the same `?` (or 1), not a
// fixed size.
mix.network @n precision(f32) (%x: tensor<?x4x8xf32>, %m: tensor<2x4x4xf32>) -> tensor<?x4x8xf32> {
  %w = mix.weight external "w" : tensor<8x8xf32>
  // expected-error @+1 {{'mix.attention' op expects mask broadcastable to the scores [B, H, S, S] = [?, 2, 4, 4], but its batch dimension is 2 in [2, 4, 4]}}
  %0 = mix.attention %x, %w, %w, %w, %w mask(%m) {num_heads = 2 : i64} : (tensor<?x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<2x4x4xf32>) -> tensor<?x4x8xf32>
  mix.return %0 : tensor<?x4x8xf32>
}

// -----

mix.network @n precision(f32) (%q: tensor<2x4x8xf32>, %m: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'mix.attention_core' op expects mask broadcastable to the scores [B, H, S, S] = [2, 2, 4, 4], but its queries dimension is 3 in [2, 3, 4]}}
  %0 = mix.attention_core %q, %q, %q, %m {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x3x4xf32>) -> tensor<2x4x8xf32>
  mix.return
}
