// Round trip of the elementwise math layers: attributes at their defaults
// are not printed, others are; every op takes the layer precision syntax.
// RUN: mix-opt %s | mix-opt | FileCheck %s
// RUN: mix-opt %s --mlir-print-op-generic | mix-opt | FileCheck %s

// CHECK-LABEL: mix.network @math
// CHECK: mix.sigmoid %[[X:.*]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.tanh %[[X]] precision(f16) : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.hard_sigmoid %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.hard_sigmoid %[[X]] {alpha = 0.16666666666666666 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.hard_swish %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.silu %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.leaky_relu %[[X]] {alpha = 1.000000e-01 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.elu %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.clip %[[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.clip %[[X]] {max = 1.000000e+00 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.exp %[[X]] precision(output = f32) : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.log %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.sqrt %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.rsqrt %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.abs %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.neg %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.erf %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.reciprocal %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.floor %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.ceil %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.round %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.sign %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.sin %[[X]] precision(f16) : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.cos %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.tan %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.asin %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.acos %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.atan %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.sinh %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.cosh %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.asinh %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.acosh %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.atanh %[[X]] : (tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.sub %[[X]], %[[B:.*]] : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
// CHECK: mix.div %[[X]], %[[B]] precision(bf16) : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
// CHECK: mix.pow %[[X]], %[[B]] : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
// CHECK: mix.maximum %[[B]], %[[X]] : (tensor<10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: mix.minimum %[[X]], %[[X]] : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
mix.network @math precision(f32) (%x: tensor<4x10xf32>, %b: tensor<10xf32>) -> tensor<4x10xf32> {
  %0 = mix.sigmoid %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %1 = mix.tanh %x precision(f16) : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %2 = mix.hard_sigmoid %x {alpha = 0.2 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %3 = mix.hard_sigmoid %x {alpha = 0.16666666666666666 : f64, beta = 0.5 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %4 = mix.hard_swish %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %5 = mix.silu %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %6 = mix.leaky_relu %x {alpha = 0.1 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %7 = mix.elu %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %8 = mix.clip %x {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %9 = mix.clip %x {max = 1.0 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %10 = mix.exp %x precision(output = f32) : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %11 = mix.log %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %12 = mix.sqrt %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %13 = mix.rsqrt %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %14 = mix.abs %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %15 = mix.neg %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %16 = mix.erf %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %17 = mix.reciprocal %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_floor = mix.floor %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_ceil = mix.ceil %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_round = mix.round %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_sign = mix.sign %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_sin = mix.sin %x precision(f16) : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_cos = mix.cos %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_tan = mix.tan %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_asin = mix.asin %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_acos = mix.acos %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_atan = mix.atan %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_sinh = mix.sinh %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_cosh = mix.cosh %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_asinh = mix.asinh %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_acosh = mix.acosh %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %r_atanh = mix.atanh %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %18 = mix.sub %x, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %19 = mix.div %x, %b precision(bf16) : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %20 = mix.pow %x, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %21 = mix.maximum %b, %x : (tensor<10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  %22 = mix.minimum %x, %x : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  mix.return %22 : tensor<4x10xf32>
}

// Data movement, reductions and average pooling.
// CHECK-LABEL: mix.network @layout
// CHECK: mix.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK: mix.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
// CHECK: mix.slice %{{.*}} {axes = array<i64: 2>, ends = array<i64: -1>, starts = array<i64: 3>, steps = array<i64: -2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
// CHECK: mix.pad %{{.*}} {mode = "edge", pads = array<i64: 0, 1, 0, 0, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
// CHECK: mix.pad %{{.*}} {pads = array<i64: 0, 0, 1, 0, 0, 1>, value = -1.000000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
// CHECK: mix.reduce_mean %{{.*}} {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK: mix.reduce_max %{{.*}} {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK: mix.avg_pool2d %{{.*}} {count_include_pad = true, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
// CHECK: mix.reduce_prod %{{.*}} precision(f16, accumulator = f32) {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
mix.network @layout precision(f32) (%x: tensor<2x3x4xf32>, %i: tensor<1x2x4x4xf32>) -> tensor<2x3x4xf32> {
  %0 = mix.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = mix.concat %x, %x {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  %2 = mix.slice %x {axes = array<i64: 2>, starts = array<i64: 3>, ends = array<i64: -1>, steps = array<i64: -2>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
  %3 = mix.pad %x {pads = array<i64: 0, 1, 0, 0, 2, 0>, mode = "edge"} : (tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  %4 = mix.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 1>, value = -1.0 : f64} : (tensor<2x3x4xf32>) -> tensor<2x3x6xf32>
  %5 = mix.reduce_mean %x {axes = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %6 = mix.reduce_max %x {keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %7 = mix.avg_pool2d %i {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, count_include_pad = true} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %8 = mix.reduce_prod %x precision(f16, accumulator = f32) {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  mix.return %x : tensor<2x3x4xf32>
}

// The index of an extremum: attributes at their defaults are not printed.
// CHECK-LABEL: mix.network @arg
// CHECK: mix.argmax %{{.*}} : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
// CHECK: mix.argmin %{{.*}} precision(f16) {axis = -1 : i64, keepdims = false, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
mix.network @arg precision(f32) (%x: tensor<2x3x4xf32>) -> tensor<2x3xi64> {
  %0 = mix.argmax %x {axis = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<1x3x4xi64>
  %1 = mix.argmin %x precision(f16) {axis = -1 : i64, keepdims = false, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
  mix.return %1 : tensor<2x3xi64>
}

// Upsampling.
// CHECK-LABEL: mix.network @upsampling
// CHECK: mix.conv_transpose2d %{{.*}}, %{{.*}}, %{{.*}} {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
// CHECK: mix.resize %{{.*}} {coordinate_mode = "align_corners", mode = "linear", scales = array<f64: 2.000000e+00, 1.500000e+00>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x6xf32>
mix.network @upsampling precision(f32) (%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x8x8xf32> {
  %0 = mix.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %1 = mix.resize %x {mode = "linear", coordinate_mode = "align_corners", scales = array<f64: 2.0, 1.5>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x8x6xf32>
  mix.return %0 : tensor<1x2x8x8xf32>
}
