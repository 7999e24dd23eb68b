// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | FileCheck %s --check-prefix=MARK
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels{enabled=false})' | FileCheck %s --check-prefix=OFF
//
// A depthwise conv2d (groups = C = F) with f32 activations and accumulator:
// the lowering keeps the loops' linalg.generic and marks it
// "depthwise_f32"; mix-use-microkernels replaces it (and the zero fill
// before it) by one call of mixrt_ukernel_depthwise_f32 on the padded
// input. The bias epilogue stays a loop after the call.

mix.network @dw precision(f32) (%x: tensor<1x3x5x7xf32>) -> tensor<1x3x5x7xf32> {
  %w = mix.weight dense<[[[[1.0, -0.5, 0.25], [2.0, 0.5, -1.0], [0.125, 1.5, -2.0]]], [[[0.5, 0.5, 0.5], [1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]]], [[[3.0, 0.0, -3.0], [0.25, 0.75, 1.25], [2.5, -0.5, 1.0]]]]> : tensor<3x1x3x3xf32>
  %b = mix.weight dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %y = mix.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>, groups = 3 : i64} : (tensor<1x3x5x7xf32>, tensor<3x1x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x7xf32>
  mix.return %y : tensor<1x3x5x7xf32>
}

mix.network @dw_strided precision(f32) (%x: tensor<2x4x9x9xf32>) -> tensor<2x4x5x5xf32> {
  %w = mix.weight dense<0.5> : tensor<4x1x3x3xf32>
  %y = mix.conv2d %x, %w precision(weights = f16) {strides = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, groups = 4 : i64} : (tensor<2x4x9x9xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x5x5xf32>
  mix.return %y : tensor<2x4x5x5xf32>
}

mix.network @grouped precision(f32) (%x: tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %w = mix.weight dense<0.5> : tensor<4x2x3x3xf32>
  %y = mix.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x5x5xf32>
  mix.return %y : tensor<1x4x5x5xf32>
}

// MARK-LABEL: func.func @dw(
// MARK:         linalg.fill
// MARK:         linalg.generic {{.*}}["parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<1x3x7x9xf32>, tensor<3x1x3x3xf32>) outs(%{{.*}} : tensor<1x3x5x7xf32>) attrs = {mix.ukernel = "depthwise_f32"}
// MARK:           math.fma
// MARK:         linalg.generic
// MARK:           arith.addf
// MARK-LABEL: func.func @dw_strided(
// MARK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4x1x3x3xf16>) outs(%{{.*}} : tensor<4x1x3x3xf32>)
// MARK:           arith.extf
// MARK:         mix.ukernel = "depthwise_f32"
// Grouped with 1 < groups < C: loops.
// MARK-LABEL: func.func @grouped(
// MARK-NOT:     mix.ukernel
// MARK:         return

// CHECK-DAG:   func.func private @mixrt_ukernel_depthwise_f32(i64, i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i32) -> i32

// N = 1, C = 3, the padded 7 x 9 input, 3x3, strides and dilations 1, the
// 5 x 7 output, no bias in the call (the epilogue adds it).
// CHECK-LABEL: func.func @mixc_net_dw(
// CHECK-NOT:     linalg.fill
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : i64
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : i64
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : i64
// CHECK-DAG:     %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG:     %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK:         call @mixrt_ukernel_depthwise_f32(%[[C1]], %[[C3]], %[[C7]], %[[C9]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C5]], %{{.*}}, %{{.*}}, %[[NULL]], %[[FLAGS]])
// CHECK-NOT:     math.fma
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         return

// N = 2, C = 4, the padded 13 x 13 input, strides 2, 2 and dilations 2, 2,
// the 5 x 5 output written in place; the f16 weight widened before.
// CHECK-LABEL: func.func @mixc_net_dw_strided(
// CHECK:         arith.extf
// CHECK-NOT:     linalg.fill
// CHECK:         arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 4 : i64
// CHECK-NEXT:    arith.constant 13 : i64
// CHECK-NEXT:    arith.constant 13 : i64
// CHECK:         arith.constant 3 : i64
// CHECK-NEXT:    arith.constant 3 : i64
// CHECK:         arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 5 : i64
// CHECK-NEXT:    arith.constant 5 : i64
// CHECK:         call @mixrt_ukernel_depthwise_f32(
// CHECK-NOT:     math.fma
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_grouped(
// CHECK-NOT:     call @mixrt_ukernel_depthwise_f32
// CHECK:         math.fma
// CHECK:         return

// OFF-NOT:     call @mixrt_ukernel_depthwise_f32
// OFF-LABEL:   func.func @mixc_net_dw(
// OFF:           linalg.fill
// OFF:           math.fma
// OFF-NOT:       mix.ukernel
// OFF-LABEL:   func.func @mixc_net_dw_strided(
// OFF:           math.fma
