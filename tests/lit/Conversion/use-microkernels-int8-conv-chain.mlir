// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm="stop-after=linalg checked=false" | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,mix-fuse-elementwise,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s --check-prefix=UNCHECKED
//
// A chain of int8 convolutions with static activation scales: the first
// one's sums, their rescale with the bias, the relu and the next layer's
// quantize are one call of mixrt_ukernel_conv2d_s8_rescale, which writes
// the int8 input of the next convolution (flags MIXRT_UKERNEL_RELU |
// MIXRT_UKERNEL_OUT_S8 = 5; the quantize's scale, zero point and qmin
// -128, asymmetric). mix-plan-memory keeps the convolution's input live
// through its epilogue, so that output is not placed in the input's bytes
// (768 and 576 here, the sums at 0). The second convolution's rescale
// writes the network's output (per-filter weight zero points:
// MIXRT_UKERNEL_A_PER_ROW = 2). Behind each call, the loops and calls of
// before run when it returns other than -1 (checks on: a rescaled value
// that is not finite, which they report) or -2 (checks off: refused).

// CHECK-LABEL: func.func @mixc_net_chain(
// CHECK:         memref.view %{{.*}}[%c768][] : memref<896xi8> to memref<1x2x6x6xi8>
// CHECK:         call @mixrt_ukernel_quantize_f32_s8(
// CHECK:         memref.view %{{.*}}[%c0{{.*}}][] : memref<896xi8> to memref<1x4x6x6xi32>
// CHECK:         memref.view %{{.*}}[%c576][] : memref<896xi8> to memref<1x4x6x6xi8>
// CHECK:         %[[FIRST:.*]] = call @mixrt_ukernel_conv2d_s8_rescale({{.*}}, %c-128_i32, %{{.*}}, %c5_i32) : ({{.*}}) -> i64
// CHECK:         %[[FAIL:.*]] = arith.cmpi ne, %[[FIRST]], %c-1_i64
// CHECK:         scf.if %[[FAIL]] {
// CHECK:           func.call @mixrt_ukernel_conv2d_s8s8s32(
// CHECK:           call @mixrt_check_fail
// CHECK:           func.call @mixrt_ukernel_quantize_f32_s8(
// CHECK:         }
// CHECK:         call @mixrt_ukernel_conv2d_s8_rescale({{.*}}, %cst{{.*}}, %c0_i32{{.*}}, %c0_i32{{.*}}, %{{.*}}, %c2_i32) : ({{.*}}) -> i64
// CHECK-NOT:     call @mixrt_ukernel_conv2d_s8_rescale
// CHECK:         return

// Without checks the relu is in the rescale loop (mix-fuse-elementwise):
// the same call; its fallback runs only when it refuses.
// UNCHECKED-LABEL: func.func @mixc_net_chain(
// UNCHECKED:         %[[FIRST:.*]] = call @mixrt_ukernel_conv2d_s8_rescale({{.*}}, %c-128_i32, %{{.*}}, %c5_i32) : ({{.*}}) -> i64
// UNCHECKED:         arith.cmpi eq, %[[FIRST]], %c-2_i64
// UNCHECKED-NOT:     mixrt_check_fail
// UNCHECKED:         call @mixrt_ukernel_conv2d_s8_rescale(
mix.network @chain precision(f32) (%x: tensor<1x2x6x6xf32>) -> tensor<1x3x6x6xf32> {
  %q, %s, %z = mix.quantize %x symmetric static(scale = 0.0078125, zero_point = 0) checked : tensor<1x2x6x6xf32> -> tensor<1x2x6x6xi8>, tensor<f32>, tensor<i32>
  %w0 = mix.weight dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, -3], [4, -5, 6], [-7, 8, -9]]], [[[2, 2, 2], [2, 2, 2], [2, 2, 2]], [[-3, 1, 0], [0, 1, -3], [5, 5, 5]]], [[[0, 0, 1], [0, 1, 0], [1, 0, 0]], [[9, -9, 9], [-9, 9, -9], [9, -9, 9]]], [[[4, 3, 2], [1, 0, -1], [-2, -3, -4]], [[1, 1, 1], [1, 1, 1], [1, 1, 1]]]]> : tensor<4x2x3x3xi8>
  %ws0 = mix.weight dense<[0.25, 0.5, 0.125, 0.0625]> : tensor<4xf32>
  %wz0 = mix.weight dense<0> : tensor<4xi32>
  %b0 = mix.weight dense<[0.5, -0.25, 1.0, 0.0]> : tensor<4xf32>
  %y0 = mix.qconv2d %q, %s, %z, %w0, %ws0, %wz0, %b0 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xi8>, tensor<f32>, tensor<i32>, tensor<4x2x3x3xi8>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r0 = mix.relu %y0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %q1, %s1, %z1 = mix.quantize %r0 asymmetric static(scale = 0.05, zero_point = -3) checked : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xi8>, tensor<f32>, tensor<i32>
  %w1 = mix.weight dense<1> : tensor<3x4x3x3xi8>
  %ws1 = mix.weight dense<0.03125> : tensor<3xf32>
  %wz1 = mix.weight dense<[0, 1, -1]> : tensor<3xi32>
  %y1 = mix.qconv2d %q1, %s1, %z1, %w1, %ws1, %wz1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xi8>, tensor<f32>, tensor<i32>, tensor<3x4x3x3xi8>, tensor<3xf32>, tensor<3xi32>) -> tensor<1x3x6x6xf32>
  mix.return %y1 : tensor<1x3x6x6xf32>
}

// The relu's result is also a network output: the quantize reads it but
// cannot move into the call (flags: relu only, the f32 result written);
// it stays a call of its own after the fallback.
// CHECK-LABEL: func.func @mixc_net_shared(
// CHECK:         call @mixrt_ukernel_conv2d_s8_rescale({{.*}}, %c1_i32) : ({{.*}}) -> i64
// CHECK:         scf.if
// CHECK:           func.call @mixrt_ukernel_conv2d_s8s8s32(
// CHECK-NOT:     mixrt_ukernel_quantize_f32_s8
// CHECK:         memref.view %{{.*}}[%c448][] : memref<768xi8> to memref<1x4x6x6xi8>
// CHECK-NEXT:    memref.extract_strided_metadata %arg1
// CHECK:         call @mixrt_ukernel_quantize_f32_s8(
mix.network @shared precision(f32) (%x: tensor<1x2x6x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x3x6x6xf32>) {
  %q, %s, %z = mix.quantize %x symmetric static(scale = 0.0078125, zero_point = 0) checked : tensor<1x2x6x6xf32> -> tensor<1x2x6x6xi8>, tensor<f32>, tensor<i32>
  %w0 = mix.weight dense<3> : tensor<4x2x3x3xi8>
  %ws0 = mix.weight dense<0.25> : tensor<4xf32>
  %wz0 = mix.weight dense<0> : tensor<4xi32>
  %y0 = mix.qconv2d %q, %s, %z, %w0, %ws0, %wz0 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xi8>, tensor<f32>, tensor<i32>, tensor<4x2x3x3xi8>, tensor<4xf32>, tensor<4xi32>) -> tensor<1x4x6x6xf32>
  %r0 = mix.relu %y0 : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %q1, %s1, %z1 = mix.quantize %r0 symmetric static(scale = 0.05, zero_point = 0) checked : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xi8>, tensor<f32>, tensor<i32>
  %w1 = mix.weight dense<1> : tensor<3x4x3x3xi8>
  %ws1 = mix.weight dense<0.03125> : tensor<3xf32>
  %wz1 = mix.weight dense<0> : tensor<3xi32>
  %y1 = mix.qconv2d %q1, %s1, %z1, %w1, %ws1, %wz1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xi8>, tensor<f32>, tensor<i32>, tensor<3x4x3x3xi8>, tensor<3xf32>, tensor<3xi32>) -> tensor<1x3x6x6xf32>
  mix.return %r0, %y1 : tensor<1x4x6x6xf32>, tensor<1x3x6x6xf32>
}
