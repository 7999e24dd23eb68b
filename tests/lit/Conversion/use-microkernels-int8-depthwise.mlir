// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm="stop-after=linalg checked=false" | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,mix-fuse-elementwise,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s --check-prefix=UNCHECKED
//
// An int8 depthwise convolution (a dynamic quantize in front, a bias, a
// relu, an add after): the loop converting its int8 input to f32, the
// depthwise sums, the rescale with the bias and the relu are one call of
// mixrt_ukernel_depthwise_s8_rescale (flags MIXRT_UKERNEL_RELU = 1), which
// reads the int8 input (at 1152) while it writes the relu's buffer (at
// 576): mix-plan-memory keeps the int8 input live through the relu, else
// the relu's output would take its bytes. Behind the call, the loops (the
// conversion, mixrt_ukernel_depthwise_f32, the checked rescale and the
// relu) run when it returns other than -1 (checks on: a rescaled value that
// is not finite, which they report) or -2 (checks off: refused).

// CHECK-LABEL: func.func @mixc_net_dw(
// CHECK:         memref.view %{{.*}}[%c1152][] : memref<1472xi8> to memref<1x4x6x6xi8>
// CHECK:         call @mixrt_ukernel_quantize_f32_s8(
// CHECK:         memref.view %{{.*}}[%c576{{.*}}][] : memref<1472xi8> to memref<1x4x6x6xf32>
// CHECK:         %[[FIRST:.*]] = call @mixrt_ukernel_depthwise_s8_rescale({{.*}}, %c1_i32) : ({{.*}}) -> i64
// CHECK:         %[[FAIL:.*]] = arith.cmpi ne, %[[FIRST]], %c-1_i64
// CHECK:         scf.if %[[FAIL]] {
// CHECK:           linalg.generic
// CHECK:             arith.sitofp
// CHECK:           func.call @mixrt_ukernel_depthwise_f32(
// CHECK:           call @mixrt_check_fail
// CHECK:         }
// CHECK:         return

// Without checks, mix-fuse-elementwise puts the relu and the add in the
// rescale's loop: no longer the rescale the call computes, so the loops
// stay.
// UNCHECKED-LABEL: func.func @mixc_net_dw(
// UNCHECKED-NOT:     mixrt_ukernel_depthwise_s8_rescale
// UNCHECKED:         call @mixrt_ukernel_depthwise_f32(
// UNCHECKED-NOT:     mixrt_ukernel_depthwise_s8_rescale
// UNCHECKED:         return
mix.network @dw precision(f32) (%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %q, %s, %z = mix.quantize %x asymmetric checked : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]]], [[[2, 2, 2], [2, 2, 2], [2, 2, 2]]], [[[0, 0, 1], [0, 1, 0], [1, 0, 0]]], [[[4, 3, 2], [1, 0, -1], [-2, -3, -4]]]]> : tensor<4x1x3x3xi8>
  %ws = mix.weight dense<[0.25, 0.5, 0.125, 0.0625]> : tensor<4xf32>
  %wz = mix.weight dense<0> : tensor<4xi32>
  %b = mix.weight dense<[0.5, -0.25, 1.0, 0.0]> : tensor<4xf32>
  %y = mix.qconv2d %q, %s, %z, %w, %ws, %wz, %b {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xi8>, tensor<f32>, tensor<i32>, tensor<4x1x3x3xi8>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = mix.relu %y : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %o = mix.add %r, %x : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  mix.return %o : tensor<1x4x6x6xf32>
}

// The relu's result is the network's: without checks the relu is in the
// rescale's loop and the call writes the caller's buffer; its
// fallback runs only when it refuses.
// CHECK-LABEL: func.func @mixc_net_out(
// CHECK:         call @mixrt_ukernel_depthwise_s8_rescale({{.*}}, %c1_i32) : ({{.*}}) -> i64
// UNCHECKED-LABEL: func.func @mixc_net_out(
// UNCHECKED:         %[[FIRST:.*]] = call @mixrt_ukernel_depthwise_s8_rescale({{.*}}, %c1_i32) : ({{.*}}) -> i64
// UNCHECKED:         arith.cmpi eq, %[[FIRST]], %c-2_i64
// UNCHECKED:         scf.if
// UNCHECKED-NOT:     mixrt_check_fail
// UNCHECKED:         func.call @mixrt_ukernel_depthwise_f32(
// UNCHECKED:         return
mix.network @out precision(f32) (%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %q, %s, %z = mix.quantize %x symmetric checked : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]]], [[[2, 2, 2], [2, 2, 2], [2, 2, 2]]], [[[0, 0, 1], [0, 1, 0], [1, 0, 0]]], [[[4, 3, 2], [1, 0, -1], [-2, -3, -4]]]]> : tensor<4x1x3x3xi8>
  %ws = mix.weight dense<[0.25, 0.5, 0.125, 0.0625]> : tensor<4xf32>
  %wz = mix.weight dense<0> : tensor<4xi32>
  %y = mix.qconv2d %q, %s, %z, %w, %ws, %wz {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xi8>, tensor<f32>, tensor<i32>, tensor<4x1x3x3xi8>, tensor<4xf32>, tensor<4xi32>) -> tensor<1x4x6x6xf32>
  %r = mix.relu %y : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  mix.return %r : tensor<1x4x6x6xf32>
}

// A plane of more than 8192 elements whose rows of one window do not fit
// 8192 floats (2800 x 3): the kernel would refuse every call, so the
// loops stay (the f32 depthwise call, no fused one).
// CHECK-LABEL: func.func @mixc_net_wide(
// UNCHECKED-LABEL: func.func @mixc_net_wide(
// UNCHECKED-NOT:     mixrt_ukernel_depthwise_s8_rescale
// CHECK-NOT:     mixrt_ukernel_depthwise_s8_rescale
// CHECK:         call @mixrt_ukernel_depthwise_f32(
// CHECK-NOT:     mixrt_ukernel_depthwise_s8_rescale
// CHECK:         return
mix.network @wide precision(f32) (%x: tensor<1x2x4x2800xf32>) -> tensor<1x2x4x2800xf32> {
  %q, %s, %z = mix.quantize %x symmetric checked : tensor<1x2x4x2800xf32> -> tensor<1x2x4x2800xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<1> : tensor<2x1x3x3xi8>
  %ws = mix.weight dense<0.5> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  %y = mix.qconv2d %q, %s, %z, %w, %ws, %wz {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x2800xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x2800xf32>
  mix.return %y : tensor<1x2x4x2800xf32>
}
