// Every verifier diagnostic of gather (constant and run-time indices),
// expand and of max_pool2d's dilations and ceil_mode.
// RUN: mix-opt %s -split-input-file -verify-diagnostics

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'mix.gather' op axis 2 is out of range for rank 2}}
  %0 = mix.gather %x {axis = 2 : i64, indices = dense<0> : tensor<i64>} : (tensor<2x4xf32>) -> tensor<2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<f32>) {
  // expected-error @+1 {{'mix.gather' op cannot gather from a rank-0 input}}
  %0 = mix.gather %x {axis = 0 : i64, indices = dense<0> : tensor<i64>} : (tensor<f32>) -> tensor<f32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'mix.gather' op index 4 (element 1 of indices) is out of range [0, 4) along axis 1}}
  %0 = mix.gather %x {axis = -1 : i64, indices = dense<[0, 4]> : tensor<2xi64>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'mix.gather' op index -1 (element 0 of indices) is out of range [0, 2) along axis 0}}
  %0 = mix.gather %x {axis = 0 : i64, indices = dense<-1> : tensor<i64>} : (tensor<2x4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'mix.gather' op result shape [2, 4] does not match the expected shape [2, 3, 1]}}
  %0 = mix.gather %x {axis = 1 : i64, indices = dense<[[0], [1], [2]]> : tensor<3x1xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mix.gather' op cannot take the dynamic batch of its input [?, 4]: it gathers along axis 0, but each sample of a dynamic batch is computed on its own}}
  %0 = mix.gather %x {axis = 0 : i64, indices = dense<[0]> : tensor<1xi64>} : (tensor<?x4xf32>) -> tensor<1x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'mix.gather' op attribute 'indices' failed to satisfy constraint: 64-bit signless integer elements attribute}}
  %0 = mix.gather %x {axis = 1 : i64, indices = dense<0> : tensor<i32>} : (tensor<2x4xf32>) -> tensor<2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'mix.expand' op result [4] has a lower rank than the input [2, 4]}}
  %0 = mix.expand %x : (tensor<2x4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'mix.expand' op cannot expand [2, 4] to [3, 2, 8]: input dimension 1 (4) is neither 1 nor 8}}
  %0 = mix.expand %x : (tensor<2x4xf32>) -> tensor<3x2x8xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mix.expand' op cannot expand [?, 4] to [?, 2, 4]: a dynamic batch must stay the leading dimension of both}}
  %0 = mix.expand %x : (tensor<?x4xf32>) -> tensor<?x2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'mix.expand' op cannot expand [?, 4] to [3, 4]: a dynamic batch must stay the leading dimension of both}}
  %0 = mix.expand %x : (tensor<?x4xf32>) -> tensor<3x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1xf32>) {
  // expected-error @+1 {{'mix.expand' op the size of the result [4611686018427387904, 4] overflows}}
  %0 = mix.expand %x : (tensor<1xf32>) -> tensor<4611686018427387904x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects 'dilations' to have 2 values, got 1}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, dilations = array<i64: 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op expects every 'dilations' value >= 1, got [0, 1]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, dilations = array<i64: 0, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op kernel, strides, dilations and padding must be at most 2147483648}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, dilations = array<i64: 4294967296, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op window of extent 10 does not fit the height dimension (8 + padding 0)}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 4, 2>, dilations = array<i64: 3, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x1x7xf32>
  mix.return
}

// -----

// With ceil_mode, (8 - 3) / 2 rounds up: 4 windows, not 3.
mix.network @n precision(f32) (%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op result shape [1, 1, 3, 3] does not match the expected shape [1, 1, 4, 4]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = true} : (tensor<1x1x8x8xf32>) -> tensor<1x1x3x3xf32>
  mix.return
}

// -----

// ceil((5 + 1 + 1 - 2) / 3) + 1 = 3 windows, but the third would start at 6,
// in the bottom padding (past 5 + 1): dropped.
mix.network @n precision(f32) (%x: tensor<1x1x5x5xf32>) {
  // expected-error @+1 {{'mix.max_pool2d' op result shape [1, 1, 3, 3] does not match the expected shape [1, 1, 2, 2]}}
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>) {
  // expected-error @+1 {{'mix.compare' op predicate "lte" is not one of eq, ne, lt, le, gt, ge, ult, ule, ugt, uge}}
  %0 = mix.compare %a, %a {predicate = "lte"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'mix.compare' op operand shapes [4] and [3] are not broadcastable}}
  %0 = mix.compare %a, %b {predicate = "lt"} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>) {
  // expected-error @+1 {{'mix.compare' op result #0 must be tensor with static dimensions}}
  %0 = mix.compare %a, %a {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<2x4xf32>, %x: tensor<3xf32>) {
  %m = mix.compare %a, %a {predicate = "eq"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  // expected-error @+1 {{'mix.where' op operand shapes [2, 4], [3] and [2, 4] are not broadcastable}}
  %0 = mix.where %m, %x, %a : (tensor<2x4xi1>, tensor<3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<2x4xf32>, %x: tensor<4xf32>) {
  %m = mix.compare %a, %a {predicate = "eq"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  // expected-error @+1 {{'mix.where' op result shape [4] does not match the expected shape [2, 4]}}
  %0 = mix.where %m, %x, %x : (tensor<2x4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>) {
  %m = mix.compare %a, %a {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // expected-error @+1 {{'mix.logical' op kind "nand" is not one of and, or, xor, not}}
  %0 = mix.logical %m, %m {kind = "nand"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>) {
  %m = mix.compare %a, %a {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // expected-error @+1 {{'mix.logical' op 'not' takes 1 mask, not 2}}
  %0 = mix.logical %m, %m {kind = "not"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>) {
  %m = mix.compare %a, %a {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // expected-error @+1 {{'mix.logical' op 'and' takes 2 masks, not 1}}
  %0 = mix.logical %m {kind = "and"} : (tensor<4xi1>) -> tensor<4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>, %b: tensor<3xf32>) {
  %m = mix.compare %a, %a {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %n = mix.compare %b, %b {predicate = "eq"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  // expected-error @+1 {{'mix.logical' op operand shapes [4] and [3] are not broadcastable}}
  %0 = mix.logical %m, %n {kind = "or"} : (tensor<4xi1>, tensor<3xi1>) -> tensor<4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>) {
  %m = mix.compare %a, %a {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // expected-error @+1 {{'mix.logical' op result shape [2, 4] does not match the expected shape [4]}}
  %0 = mix.logical %m {kind = "not"} : (tensor<4xi1>) -> tensor<2x4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%a: tensor<4xf32>) {
  // expected-error @+1 {{'mix.logical' op operand #0 must be variadic of tensor with static dimensions}}
  %0 = mix.logical %a {kind = "not"} : (tensor<4xf32>) -> tensor<4xi1>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'mix.gather' op needs either the `indices` attribute or an indices operand, not both}}
  %0 = mix.gather %x, %i {axis = 1 : i64, indices = dense<0> : tensor<3xi64>} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'mix.gather' op needs either the `indices` attribute or an indices operand, not neither}}
  %0 = mix.gather %x {axis = 1 : i64} : (tensor<2x4xf32>) -> tensor<2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>, %i: tensor<?x3xi64>) {
  // expected-error @+1 {{'mix.gather' op run-time indices must have a static shape, got [?, 3]}}
  %0 = mix.gather %x, %i {axis = 0 : i64} : (tensor<2x4xf32>, tensor<?x3xi64>) -> tensor<?x3x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x0xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'mix.gather' op cannot gather by run-time indices along axis 1 of size 0}}
  %0 = mix.gather %x, %i {axis = 1 : i64} : (tensor<2x0xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'mix.gather' op operand #1 must be}}
  %0 = mix.gather %x, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'mix.gather' op result shape [2, 4] does not match the expected shape [2, 3]}}
  %0 = mix.gather %x, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x4xf32>
  mix.return
}
