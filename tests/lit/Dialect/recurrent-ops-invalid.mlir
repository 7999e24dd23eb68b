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

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op direction must be "forward", "reverse" or "bidirectional", got "backward"}}
  %y:3 = mix.lstm %x, %w, %r {direction = "backward"} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op layout must be 0 (time first) or 1 (batch first), got 2}}
  %y:3 = mix.lstm %x, %w, %r {layout = 2 : i64} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op state precision must be a float format (f16, bf16, f32, f64), got int8}}
  %y:3 = mix.lstm %x, %w, %r {state_precision = #mix.precision<int8>} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x2x3xf32>) -> tensor<?x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op cannot take the dynamic shape [?, 2, 3]: its time steps and batch must be static}}
  %y:3 = mix.lstm %x, %w, %r : (tensor<?x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<?x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x2x3xf32>) -> tensor<?x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  %x5 = mix.weight external "x" : tensor<5x2x3xf32>
  // expected-error @+1 {{'mix.lstm' op cannot have the dynamic result shape [?, 1, 2, 4]: its time steps and batch must be static}}
  %y:3 = mix.lstm %x5, %w, %r : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<?x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x6xf32>) -> tensor<5x6xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op expects an input of rank 3, got [5, 6]}}
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x6xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x6xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x15x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op expects w of shape [D, 4H, I], got [1, 15, 3]}}
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x15x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x2xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op expects w of shape [1, 16, 3] (D = 1, H = 4, I = 3), got [1, 16, 2]}}
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x16x2xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x3xf32>
  // expected-error @+1 {{'mix.lstm' op expects r of shape [1, 16, 4] (D = 1, H = 4, I = 3), got [1, 16, 3]}}
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x3xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  %b = mix.weight external "b" : tensor<1x16xf32>
  // expected-error @+1 {{'mix.lstm' op expects b of shape [1, 32] (D = 1, H = 4, I = 3), got [1, 16]}}
  %y:3 = mix.lstm %x, %w, %r b(%b) : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x16xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  %h = mix.weight external "h" : tensor<2x1x4xf32>
  // expected-error @+1 {{'mix.lstm' op expects initial_h of shape [1, 2, 4] (layout 0), got [2, 1, 4]}}
  %y:3 = mix.lstm %x, %w, %r initial_h(%h) : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<2x1x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op expects result y of shape [5, 2, 1, 4] (layout 1), got [5, 1, 2, 4]}}
  %y:3 = mix.lstm %x, %w, %r {layout = 1 : i64} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op expects result y_h of shape [1, 2, 4] (layout 0), got [2, 1, 4]}}
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<2x1x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  %c = mix.weight external "c" : tensor<1x2x5xf32>
  // expected-error @+1 {{'mix.lstm' op expects initial_c of shape [1, 2, 4] (layout 0), got [1, 2, 5]}}
  %y:3 = mix.lstm %x, %w, %r initial_c(%c) : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x2x5xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-error @+1 {{'mix.lstm' op expects result y_c of shape [1, 2, 4] (layout 0), got [1, 2, 3]}}
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x3xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

// gru shares lstm's shape checks (3 gates instead of 4), and checks
// linear_before_reset.
mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x12x3xf32>
  %r = mix.weight external "r" : tensor<1x12x4xf32>
  // expected-error @+1 {{'mix.gru' op linear_before_reset must be 0 or 1, got 2}}
  %y:2 = mix.gru %x, %w, %r {linear_before_reset = 2 : i64} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x15x3xf32>
  %r = mix.weight external "r" : tensor<1x12x4xf32>
  // expected-error @+1 {{'mix.gru' op expects r of shape [1, 15, 5] (D = 1, H = 5, I = 3), got [1, 12, 4]}}
  %y:2 = mix.gru %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x15x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %x : tensor<5x2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x3xf32> {
  %w = mix.weight external "w" : tensor<1x12x3xf32>
  %r = mix.weight external "r" : tensor<1x12x4xf32>
  // expected-error @+1 {{'mix.gru' op expects result y_h of shape [1, 2, 4] (layout 0), got [1, 2, 3]}}
  %y:2 = mix.gru %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x3xf32>)
  mix.return %x : tensor<5x2x3xf32>
}
