// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | FileCheck %s --check-prefix=MARK
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels{enabled=false})' | FileCheck %s --check-prefix=OFF
//
// A depthwise conv2d (groups = C = F) with f32 activations and accumulator:
// no padded copy of the input. The lowering's loop reads the unpadded input
// in its body (clamped tensor.extract, +0 selected outside the image), is
// marked "depthwise_f32" with its window (mix.ukernel_window: strides,
// dilations, padding top, left, bottom, right); mix-use-microkernels
// replaces it (and the zero fill before it) by one call of
// mixrt_ukernel_depthwise_f32 on the unpadded input with the padding. The
// bias epilogue stays a loop after the call. Without the rewrite the loop
// stays correct (OFF).

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

// Asymmetric padding [top, left, bottom, right] = [0, 1, 2, 3]: 6 x 8 in,
// 6 x 10 out.
mix.network @dw_asym precision(f32) (%x: tensor<1x2x6x8xf32>) -> tensor<1x2x6x10xf32> {
  %w = mix.weight dense<0.25> : tensor<2x1x3x3xf32>
  %y = mix.conv2d %x, %w {padding = array<i64: 0, 1, 2, 3>, groups = 2 : i64} : (tensor<1x2x6x8xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x6x10xf32>
  mix.return %y : tensor<1x2x6x10xf32>
}

mix.network @grouped precision(f32) (%x: tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %w = mix.weight dense<0.5> : tensor<4x2x3x3xf32>
  %y = mix.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x5x5xf32>
  mix.return %y : tensor<1x4x5x5xf32>
}

// No padded copy (no 1x3x7x9 tensor): the loop's only operand is the
// weight; its body reads the 1x3x5x7 input at a clamped position and selects
// +0 outside; padding 1 on every side.
// MARK-LABEL: func.func @dw(
// MARK-SAME:      %[[X:.*]]: tensor<1x3x5x7xf32>
// MARK-NOT:     tensor<1x3x7x9xf32>
// MARK:         linalg.fill
// MARK:         linalg.generic {{.*}}["parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]} ins(%{{.*}} : tensor<3x1x3x3xf32>) outs(%{{.*}} : tensor<1x3x5x7xf32>) attrs = {mix.ukernel = "depthwise_f32", mix.ukernel_window = array<i64: 1, 1, 1, 1, 1, 1, 1, 1>}
// MARK:           %[[V:.*]] = tensor.extract %[[X]]
// MARK:           %[[S:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// MARK:           math.fma %[[S]], %{{.*}}, %{{.*}} : f32
// MARK:         linalg.generic
// MARK:           arith.addf
// MARK-LABEL: func.func @dw_strided(
// MARK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4x1x3x3xf16>) outs(%{{.*}} : tensor<4x1x3x3xf32>)
// MARK:           arith.extf
// MARK-NOT:     tensor<2x4x13x13xf32>
// MARK:         mix.ukernel = "depthwise_f32", mix.ukernel_window = array<i64: 2, 2, 2, 2, 2, 2, 2, 2>
// MARK-LABEL: func.func @dw_asym(
// MARK-NOT:     tensor<1x2x8x12xf32>
// MARK:         mix.ukernel = "depthwise_f32", mix.ukernel_window = array<i64: 1, 1, 1, 1, 0, 1, 2, 3>
// Grouped with 1 < groups < C: not depthwise, the convolution kernel per
// group (use-microkernels-conv.mlir), no padded copy either.
// MARK-LABEL: func.func @grouped(
// MARK-NOT:     tensor<1x4x7x7xf32>
// MARK-NOT:     depthwise_f32
// MARK:         mix.ukernel = "conv2d_f32"
// MARK:         return

// CHECK-DAG:   func.func private @mixrt_ukernel_depthwise_f32(i64, i64, i64, i64, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i32) -> i32

// N = 1, C = 3, the unpadded 5 x 7 input -- the network's argument itself,
// no copy --, 3x3, strides and dilations 1, padding 1, 1, 1, 1, the 5 x 7
// output in the workspace (no padded buffer: 420 bytes of intermediates),
// no bias in the call (the epilogue adds it).
// CHECK-LABEL: func.func @mixc_net_dw(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x3x5x7xf32>
// CHECK-SAME:      intermediates = 420
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     linalg.generic
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : i64
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : i64
// CHECK:         memref.extract_strided_metadata %[[X]] :
// CHECK:         %[[IN:.*]] = llvm.inttoptr
// CHECK-DAG:     %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG:     %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK:         call @mixrt_ukernel_depthwise_f32(%[[C1]], %[[C3]], %[[C5]], %[[C7]], %[[IN]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %[[FLAGS]])
// CHECK-NOT:     math.fma
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         return

// N = 2, C = 4, the unpadded 9 x 9 input, strides 2, 2, dilations 2, 2,
// padding 2, 2, 2, 2, the 5 x 5 output written in place; the f16 weight
// widened before.
// CHECK-LABEL: func.func @mixc_net_dw_strided(
// CHECK:         arith.extf
// CHECK-NOT:     linalg.fill
// CHECK:         arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 4 : i64
// CHECK-NEXT:    arith.constant 9 : i64
// CHECK-NEXT:    arith.constant 9 : i64
// CHECK:         arith.constant 3 : i64
// CHECK-NEXT:    arith.constant 3 : i64
// CHECK:         arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 5 : i64
// CHECK-NEXT:    arith.constant 5 : i64
// CHECK:         call @mixrt_ukernel_depthwise_f32(
// CHECK-NOT:     math.fma
// CHECK:         return

// The unpadded 6 x 8 input; strides and dilations 1; padding 0, 1, 2, 3 in
// that order; the 6 x 10 output.
// CHECK-LABEL: func.func @mixc_net_dw_asym(
// CHECK-NOT:     linalg.fill
// CHECK:         arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 6 : i64
// CHECK-NEXT:    arith.constant 8 : i64
// CHECK:         arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 0 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 3 : i64
// CHECK-NEXT:    arith.constant 6 : i64
// CHECK-NEXT:    arith.constant 10 : i64
// CHECK:         call @mixrt_ukernel_depthwise_f32(
// CHECK-NOT:     math.fma
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_grouped(
// CHECK-NOT:     call @mixrt_ukernel_depthwise_f32
// CHECK:         call @mixrt_ukernel_conv2d_grouped_f32(
// CHECK-NOT:     math.fma
// CHECK:         return

// Not rewritten: the loop itself, reading the unpadded input in its body.
// OFF-NOT:     call @mixrt_ukernel_depthwise_f32
// OFF-LABEL:   func.func @mixc_net_dw(
// OFF-SAME:        %[[X:[^:]*]]: memref<1x3x5x7xf32>
// OFF:           linalg.fill
// OFF:           memref.load %[[X]]
// OFF:           arith.select
// OFF:           math.fma
// OFF-NOT:       mix.ukernel
// OFF-LABEL:   func.func @mixc_net_dw_strided(
// OFF:           math.fma
