// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | FileCheck %s --check-prefix=MARK
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
//
// int8 convolutions of several groups (depthwise or grouped; the im2col
// GEMMs are one group only) sum exactly in f32 when the weights prove it:
// every partial sum of channel f is an integer of magnitude at most
// max|a - za| * sum_k |b_k - zb| <= 2^24. The lowering then widens the
// quantized input (a - za, in f32), the constant weight at compile time
// (b - zb), and computes the sums by the f32 convolution loop that
// mix-use-microkernels turns into mixrt_ukernel_depthwise_f32 or
// mixrt_ukernel_conv2d_grouped_f32; the rescale reads the f32
// sums (extended to f64, exactly). Otherwise the i32 loops stay.

// Depthwise, 3x3: always exact (9 * 255 * 255 < 2^24).
mix.network @dw precision(int8<asymmetric>) (%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %w = mix.weight dense<[[[[0.5, -0.25, 1.0], [0.125, 0.75, -1.0], [0.25, 0.5, -0.5]]], [[[1.0, 0.5, 0.25], [-0.125, 0.0, 0.5], [0.25, -0.75, 1.0]]], [[[0.5, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 0.5]]], [[[-1.0, 0.25, 0.5], [0.75, -0.5, 0.125], [0.0, 0.25, 1.0]]]]> : tensor<4x1x3x3xf32>
  %b = mix.weight dense<[0.5, -1.0, 2.0, 0.0]> : tensor<4xf32>
  %y = mix.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  mix.return %y : tensor<1x4x6x6xf32>
}

// Grouped, 2 groups of 2 channels, K = 18. int8<asymmetric> weights: the
// splat 0.5 quantizes to 127 with zero point -128, so b - zb = 255:
// 18 * 255 * 255 < 2^24.
mix.network @grouped precision(int8<asymmetric>) (%x: tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %w = mix.weight dense<0.5> : tensor<4x2x3x3xf32>
  %y = mix.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x5x5xf32>
  mix.return %y : tensor<1x4x5x5xf32>
}

// Grouped, K = 64 * 3 * 3 = 576 weights with b - zb = 255 per channel (as
// above): 576 * 255 * 255 = 37,454,400 > 2^24, so f32 could round: the i32
// loops stay.
mix.network @too_wide precision(int8<asymmetric>) (%x: tensor<1x128x3x3xf32>) -> tensor<1x2x1x1xf32> {
  %w = mix.weight dense<0.5> : tensor<2x64x3x3xf32>
  %y = mix.conv2d %x, %w {groups = 2 : i64} : (tensor<1x128x3x3xf32>, tensor<2x64x3x3xf32>) -> tensor<1x2x1x1xf32>
  mix.return %y : tensor<1x2x1x1xf32>
}

// The input quantized to i8, then widened: extsi, minus the zero point,
// sitofp; the weight b - zb as an f32 constant; the marked f32 loop over
// the unpadded input; the rescale extends the f32 sums to f64.
// MARK-LABEL: func.func @dw(
// MARK:         %[[Q:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x6x6xi8>) attrs = {mix.ukernel = "checked_quantize"}
// MARK:         %[[W:.*]] = arith.constant dense<{{\[}}[{{\[}}[6.400000e+01, -3.200000e+01, 1.270000e+02], {{.*}} : tensor<4x1x3x3xf32>
// MARK:         %[[A:.*]] = linalg.generic {{.*}} ins(%[[Q]], %{{.*}} : tensor<1x4x6x6xi8>, tensor<i32>) outs(%{{.*}} : tensor<1x4x6x6xf32>)
// MARK:           %[[E:.*]] = arith.extsi %{{.*}} : i8 to i32
// MARK:           %[[D:.*]] = arith.subi %[[E]], %{{.*}} : i32
// MARK:           arith.sitofp %[[D]] : i32 to f32
// MARK:         %[[S:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<4x1x3x3xf32>) outs(%{{.*}} : tensor<1x4x6x6xf32>) attrs = {mix.ukernel = "depthwise_f32", mix.ukernel_window = array<i64: 1, 1, 1, 1, 1, 1, 1, 1>}
// MARK:           tensor.extract %[[A]]
// MARK:           math.fma
// MARK:         linalg.generic {{.*}} ins(%[[S]], {{.*}} attrs = {mix.ukernel = "checked_rescale"}
// MARK:           arith.extf %{{.*}} : f32 to f64
// MARK-LABEL: func.func @grouped(
// MARK:         arith.constant dense<2.550000e+02> : tensor<4x2x3x3xf32>
// MARK:         mix.ukernel = "conv2d_f32"
// MARK-LABEL: func.func @too_wide(
// MARK-NOT:     mix.ukernel = "conv2d_f32"
// MARK:         arith.muli %{{.*}}, %{{.*}} : i32
// MARK-NOT:     mix.ukernel = "conv2d_f32"
// MARK:         return

// After the rewrite: one depthwise call; the rescale's check guarded by the
// bound (the sums are below 2^31 like i32 ones).
// CHECK-LABEL: func.func @mixc_net_dw(
// CHECK:         call @mixrt_ukernel_depthwise_f32(
// CHECK:         scf.if
// CHECK:           linalg.generic
// CHECK-LABEL: func.func @mixc_net_grouped(
// CHECK:         call @mixrt_ukernel_conv2d_grouped_f32(
// CHECK-LABEL: func.func @mixc_net_too_wide(
// CHECK-NOT:     call @mixrt_ukernel_conv2d_grouped_f32
// CHECK:         return
