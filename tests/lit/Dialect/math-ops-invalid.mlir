// Every verifier diagnostic of the elementwise math layers.
// RUN: mix-opt %s -split-input-file -verify-diagnostics

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.sigmoid' op result shape [5] differs from the input shape [4]}}
  %0 = mix.sigmoid %x : (tensor<4xf32>) -> tensor<5xf32>
  mix.return %x : tensor<4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.atanh' op result shape [2, 2] differs from the input shape [4]}}
  %0 = mix.atanh %x : (tensor<4xf32>) -> tensor<2x2xf32>
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

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.transpose' op permutation [0, 0] is not a permutation of 0..1}}
  %0 = mix.transpose %x {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.transpose' op permutation [1, 0, 2] has 3 entries for rank 2}}
  %0 = mix.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'mix.transpose' op cannot take the dynamic batch of its input [?, 3]: the permutation moves dimension 0}}
  %0 = mix.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  mix.return %x : tensor<?x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>, %y: tensor<3x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.concat' op input 1 [3, 3] does not match input 0 [2, 3] outside axis 1}}
  %0 = mix.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.concat' op axis 2 is out of range for rank 2}}
  %0 = mix.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.concat' op needs at least one input}}
  %0 = mix.concat {axis = 0 : i64} : () -> tensor<2x3xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'mix.concat' op cannot take the dynamic batch of its input [?, 3]: it concatenates along axis 0}}
  %0 = mix.concat %x, %x {axis = 0 : i64} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  mix.return %x : tensor<?x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'mix.slice' op axes, starts, ends and steps must have one entry per sliced axis}}
  %0 = mix.slice %x {axes = array<i64: 1>, starts = array<i64: 0, 1>, ends = array<i64: 4>, steps = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  mix.return %x : tensor<2x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'mix.slice' op axis 1 is sliced twice}}
  %0 = mix.slice %x {axes = array<i64: 1, -1>, starts = array<i64: 0, 0>, ends = array<i64: 4, 4>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  mix.return %x : tensor<2x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'mix.slice' op axis 2 is out of range for rank 2}}
  %0 = mix.slice %x {axes = array<i64: 2>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  mix.return %x : tensor<2x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'mix.slice' op step of axis 1 is 0}}
  %0 = mix.slice %x {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 0>} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  mix.return %x : tensor<2x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'mix.slice' op slice 0:9:1 of axis 1 (size 8) is not clamped: 0 <= start < size and -1 <= end <= size}}
  %0 = mix.slice %x {axes = array<i64: 1>, starts = array<i64: 0>, ends = array<i64: 9>, steps = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x9xf32>
  mix.return %x : tensor<2x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'mix.slice' op cannot take the dynamic batch of its input [?, 8]: it slices axis 0}}
  %0 = mix.slice %x {axes = array<i64: 0>, starts = array<i64: 0>, ends = array<i64: 1>, steps = array<i64: 1>} : (tensor<?x8xf32>) -> tensor<1x8xf32>
  mix.return %x : tensor<?x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.pad' op mode 'wrap' is not one of constant, reflect, edge}}
  %0 = mix.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "wrap"} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.pad' op pads [0, 1] must have 4 values (before and after each of 2 dimensions)}}
  %0 = mix.pad %x {pads = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.pad' op pads [0, -1, 0, 1] must not be negative}}
  %0 = mix.pad %x {pads = array<i64: 0, -1, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.pad' op value must not be NaN}}
  %0 = mix.pad %x {pads = array<i64: 0, 1, 0, 1>, value = 0x7FF8000000000000 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.pad' op reflect pads of dimension 1 (3, 0) must be smaller than its size 3}}
  %0 = mix.pad %x {pads = array<i64: 0, 3, 0, 0>, mode = "reflect"} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x0xf32>) -> tensor<2x0xf32> {
  // expected-error @+1 {{'mix.pad' op cannot pad dimension 1, which is empty}}
  %0 = mix.pad %x {pads = array<i64: 0, 1, 0, 0>} : (tensor<2x0xf32>) -> tensor<2x1xf32>
  mix.return %x : tensor<2x0xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'mix.pad' op cannot take the dynamic batch of its input [?, 3]: it pads dimension 0}}
  %0 = mix.pad %x {pads = array<i64: 1, 0, 0, 0>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  mix.return %x : tensor<?x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.reduce_sum' op axis 1 is reduced twice}}
  %0 = mix.reduce_sum %x {axes = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.reduce_l2' op axis -3 is out of range for rank 2}}
  %0 = mix.reduce_l2 %x {axes = array<i64: -3>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'mix.reduce_max' op cannot take the dynamic batch of its input [?, 3]: it reduces axis 0}}
  %0 = mix.reduce_max %x : (tensor<?x3xf32>) -> tensor<1x1xf32>
  mix.return %x : tensor<?x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'mix.avg_pool2d' op padding [2, 0, 0, 0] must be smaller than the kernel [2, 2]}}
  %0 = mix.avg_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 2, 0, 0, 0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x3xf32>
  mix.return %x : tensor<1x2x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.conv_transpose2d' op input channels (4) do not match the weight's first dimension (3); the weight is [C, F / groups, KH, KW]}}
  %0 = mix.conv_transpose2d %x, %w : (tensor<1x4x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.conv_transpose2d' op input channels (4) are not divisible by groups (3)}}
  %0 = mix.conv_transpose2d %x, %w {groups = 3 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.conv_transpose2d' op expects groups >= 1, got 0}}
  %0 = mix.conv_transpose2d %x, %w {groups = 0 : i64} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.conv_transpose2d' op output_padding [2, 0] must be smaller than the stride or the dilation}}
  %0 = mix.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, output_padding = array<i64: 2, 0>} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x11x9xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x1x1xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{'mix.conv_transpose2d' op padding [1, 0, 0, 0] leaves no output along the height}}
  %0 = mix.conv_transpose2d %x, %w {padding = array<i64: 1, 0, 0, 0>} : (tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  mix.return %x : tensor<1x4x1x1xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.conv_transpose2d' op expects bias of shape [2] (output channels), got [3]}}
  %0 = mix.conv_transpose2d %x, %w, %b : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>, tensor<3xf32>) -> tensor<1x2x6x6xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.resize' op mode 'area' is not one of nearest, linear, cubic}}
  %0 = mix.resize %x {mode = "area", scales = array<f64: 2.0, 2.0>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.resize' op coordinate_mode 'tf_crop_and_resize' is not one of half_pixel, pytorch_half_pixel, asymmetric, align_corners}}
  %0 = mix.resize %x {coordinate_mode = "tf_crop_and_resize", scales = array<f64: 2.0, 2.0>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.resize' op nearest_mode 'up' is not one of round_prefer_floor, round_prefer_ceil, floor, ceil}}
  %0 = mix.resize %x {nearest_mode = "up", scales = array<f64: 2.0, 2.0>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.resize' op scales must have 2 values (height, width), got 4}}
  %0 = mix.resize %x {scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.resize' op scales must be positive and finite, got -2}}
  %0 = mix.resize %x {scales = array<f64: -2.0, 2.0>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.resize' op scale 0.1 gives an output size of 0}}
  %0 = mix.resize %x {scales = array<f64: 0.1, 2.0>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x8xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

// Sizes near int64's limits are errors, never overflows.
mix.network @n precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'mix.slice' op result shape [2, 2] does not match the expected shape [2, 1]}}
  %0 = mix.slice %x {axes = array<i64: 1>, starts = array<i64: 7>, ends = array<i64: -1>, steps = array<i64: -9223372036854775808>} : (tensor<2x8xf32>) -> tensor<2x2xf32>
  mix.return %x : tensor<2x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'mix.pad' op pads [0, 9223372036854775807, 0, 0] must be at most 2147483648}}
  %0 = mix.pad %x {pads = array<i64: 0, 9223372036854775807, 0, 0>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.return %x : tensor<2x8xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x9223372036854775806xf32>) -> tensor<2x9223372036854775806xf32> {
  // expected-error @+1 {{'mix.pad' op the padded size of dimension 1 overflows}}
  %0 = mix.pad %x {pads = array<i64: 0, 4, 0, 0>} : (tensor<2x9223372036854775806xf32>) -> tensor<2x9223372036854775806xf32>
  mix.return %x : tensor<2x9223372036854775806xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x9223372036854775806xf32>) -> tensor<2x9223372036854775806xf32> {
  // expected-error @+1 {{'mix.concat' op the concatenated size along axis 1 overflows}}
  %0 = mix.concat %x, %x {axis = 1 : i64} : (tensor<2x9223372036854775806xf32>, tensor<2x9223372036854775806xf32>) -> tensor<2x9223372036854775806xf32>
  mix.return %x : tensor<2x9223372036854775806xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'mix.conv_transpose2d' op strides, dilations and paddings must be at most 2147483648}}
  %0 = mix.conv_transpose2d %x, %w {strides = array<i64: 9223372036854775807, 1>} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  mix.return %x : tensor<1x4x4x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x4611686018427387904x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4611686018427387904x4xf32> {
  // expected-error @+1 {{'mix.conv_transpose2d' op the output size along the height overflows}}
  %0 = mix.conv_transpose2d %x, %w {strides = array<i64: 4, 1>} : (tensor<1x4x4611686018427387904x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  mix.return %x : tensor<1x4x4611686018427387904x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.argmax' op axis 2 is out of range for rank 2}}
  %0 = mix.argmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'mix.argmin' op cannot take the dynamic batch of its input [?, 3]: its axis is 0}}
  %0 = mix.argmin %x : (tensor<?x3xf32>) -> tensor<1x3xi64>
  mix.return %x : tensor<?x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x0xf32>) -> tensor<2x0xf32> {
  // expected-error @+1 {{'mix.argmax' op axis 1 is empty: an empty slice has no argmax}}
  %0 = mix.argmax %x {axis = 1 : i64} : (tensor<2x0xf32>) -> tensor<2x1xi64>
  mix.return %x : tensor<2x0xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.argmax' op result shape [2] does not match the expected shape [3]}}
  %0 = mix.argmax %x {keepdims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.argmax' op result #0 must be}}
  %0 = mix.argmax %x : (tensor<2x3xf32>) -> tensor<1x3xf32>
  mix.return %x : tensor<2x3xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'mix.reduce_prod' op result shape [2, 3] does not match the expected shape [2, 1]}}
  %0 = mix.reduce_prod %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return %x : tensor<2x3xf32>
}
