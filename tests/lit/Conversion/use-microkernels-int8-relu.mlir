// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm="stop-after=linalg checked=false" | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s --check-prefix=UNCHECKED
// RUN: mix-opt %s --mix-lower-to-llvm="stop-after=linalg checked=false" | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,mix-fuse-elementwise,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s --check-prefix=FUSED
//
// An int8 convolution, its rescale and the relu after it are one call of
// mixrt_ukernel_conv2d_s8_rescale (use-microkernels-int8-conv-chain.mlir);
// behind it, run when it returns a rescaled value that is not finite, the
// checked rescale of the sums (written in NCHW by
// mixrt_ukernel_conv2d_s8s8s32, read in order) stays a loop. A relu right
// after it that reads only its output is computed in that loop, which
// writes the relu's buffer; so does the loop's copy without checks (run
// when no value can overflow f32). Without checks (mix.ukernel =
// "rescale") the loop itself computes the relu.

// UNCHECKED-LABEL: func.func @mixc_net_relu(
// UNCHECKED-SAME:      %[[X:.*]]: memref<1x3x8x8xf32>, %[[Y:.*]]: memref<1x17x8x8xf32>
// UNCHECKED:         call @mixrt_ukernel_conv2d_s8s8s32(
// UNCHECKED-NOT:     scf.if
// UNCHECKED:         linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], {{.*}}, #[[ID]]], {{.*}} ins(%{{.*}} : memref<1x17x8x8xi32>, {{.*}} outs(%[[Y]] : memref<1x17x8x8xf32>)
// UNCHECKED:           %[[R:.*]] = arith.maximumf %{{.*}}, %cst{{.*}} : f32
// UNCHECKED-NEXT:      linalg.yield %[[R]] : f32
// UNCHECKED-NOT:     linalg.generic
// UNCHECKED:         return

// CHECK-LABEL: func.func @mixc_net_relu(
// CHECK-SAME:      %[[X:.*]]: memref<1x3x8x8xf32>, %[[Y:.*]]: memref<1x17x8x8xf32>
// CHECK:         call @mixrt_ukernel_conv2d_s8_rescale({{.*}}, %c1_i32) : ({{.*}}) -> i64
// CHECK:         call @mixrt_ukernel_conv2d_s8s8s32(
// CHECK:         scf.if
// CHECK:           linalg.generic {{.*}} outs(%[[Y]] : memref<1x17x8x8xf32>)
// CHECK:             call @mixrt_check_fail
// CHECK:             %[[R:.*]] = arith.maximumf %{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:        linalg.yield %[[R]] : f32
// CHECK:         } else {
// CHECK:           linalg.generic {{.*}} outs(%[[Y]] : memref<1x17x8x8xf32>)
// CHECK-NOT:         mixrt_check_fail
// CHECK:             %[[R2:.*]] = arith.maximumf %{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:        linalg.yield %[[R2]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return
mix.network @relu precision(f32) (%x: tensor<1x3x8x8xf32>) -> tensor<1x17x8x8xf32> {
  %w = mix.weight dense<0.5> : tensor<17x3x3x3xf32>
  %b = mix.weight dense<0.25> : tensor<17xf32>
  %y = mix.conv2d %x, %w, %b precision(int8) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<17x3x3x3xf32>, tensor<17xf32>) -> tensor<1x17x8x8xf32>
  %r = mix.relu %y : (tensor<1x17x8x8xf32>) -> tensor<1x17x8x8xf32>
  mix.return %r : tensor<1x17x8x8xf32>
}

// The network returns the convolution too: its output must be written, and
// the relu stays its own loop.
// CHECK-LABEL: func.func @mixc_net_both(
// CHECK-SAME:      %[[X:.*]]: memref<1x3x8x8xf32>, %[[Y:.*]]: memref<1x17x8x8xf32>, %[[R:.*]]: memref<1x17x8x8xf32>
// CHECK:         call @mixrt_ukernel_conv2d_s8s8s32(
// CHECK:         scf.if
// CHECK:           linalg.generic {{.*}} outs(%[[Y]] : memref<1x17x8x8xf32>)
// CHECK-NOT:         arith.maximumf
// CHECK:         } else {
// CHECK:           linalg.generic {{.*}} outs(%[[Y]] : memref<1x17x8x8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[Y]] : memref<1x17x8x8xf32>) outs(%[[R]] : memref<1x17x8x8xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.maximumf
mix.network @both precision(f32) (%x: tensor<1x3x8x8xf32>) -> (tensor<1x17x8x8xf32>, tensor<1x17x8x8xf32>) {
  %w = mix.weight dense<0.5> : tensor<17x3x1x1xf32>
  %y = mix.conv2d %x, %w precision(int8) : (tensor<1x3x8x8xf32>, tensor<17x3x1x1xf32>) -> tensor<1x17x8x8xf32>
  %r = mix.relu %y : (tensor<1x17x8x8xf32>) -> tensor<1x17x8x8xf32>
  mix.return %y, %r : tensor<1x17x8x8xf32>, tensor<1x17x8x8xf32>
}

// A relu in place of the rescale's output (another view of the same bytes,
// which the depthwise rescale also reads its f32 sums from): fused too.
// CHECK-LABEL: func.func @mixc_net_dwchain(
// CHECK:         call @mixrt_ukernel_depthwise_f32(
// CHECK:         scf.if
// CHECK:           linalg.generic {{.*}} outs(%[[R:.*]] : memref<1x4x6x6xf32>)
// CHECK:             arith.maximumf %{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:        linalg.yield
// CHECK:         } else {
// CHECK:         linalg.generic {{.*}} ins(%[[R]] : memref<1x4x6x6xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.negf
mix.network @dwchain precision(f32) (%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %w = mix.weight dense<0.5> : tensor<4x1x3x3xf32>
  %y = mix.conv2d %x, %w precision(int8) {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  %r = mix.relu %y : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %s = mix.sigmoid %r : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  mix.return %s : tensor<1x4x6x6xf32>
}

// Unchecked, the rescale fuses with the elementwise layers after it (here a
// residual add) in mix-fuse-elementwise: one loop reads the NCHW sums and
// the residual in order and writes the result.
// FUSED-LABEL: func.func @mixc_net_residual(
// FUSED-SAME:      %[[X:.*]]: memref<1x17x8x8xf32>, %[[Y:.*]]: memref<1x17x8x8xf32>
// FUSED:         call @mixrt_ukernel_conv2d_s8s8s32(
// FUSED-NOT:     scf.for
// FUSED:         linalg.generic {{.*}} ins({{.*}}, %[[X]] : {{.*}}) outs(%[[Y]]
// FUSED:           arith.truncf
// FUSED:           %[[S:.*]] = arith.addf
// FUSED-NEXT:      linalg.yield %[[S]] : f32
// FUSED-NOT:     linalg.generic
// FUSED:         return
mix.network @residual precision(f32) (%x: tensor<1x17x8x8xf32>) -> tensor<1x17x8x8xf32> {
  %w = mix.weight dense<0.5> : tensor<17x17x1x1xf32>
  %y = mix.conv2d %x, %w precision(int8) : (tensor<1x17x8x8xf32>, tensor<17x17x1x1xf32>) -> tensor<1x17x8x8xf32>
  %s = mix.add %y, %x : (tensor<1x17x8x8xf32>, tensor<1x17x8x8xf32>) -> tensor<1x17x8x8xf32>
  mix.return %s : tensor<1x17x8x8xf32>
}
