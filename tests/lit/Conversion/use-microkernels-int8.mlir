// RUN: mix-opt %s --mix-lower-to-llvm="stop-after=linalg checked=false" | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
//
// The rescale epilogue of an int8 dense fuses into mixrt's int8 GEMM call
// (mixrt_ukernel_gemm_s8s8f32) when the call computes the same bits: weight
// scales and bias constants, the scales positive and finite, the bias
// finite (the call canonicalizes NaN results, the loop would not). Without
// checks there is no overflow to report: the call runs first, and only when
// it refuses its arguments (a NaN or infinite activation scale, from a
// non-finite input) do the i32 GEMM and the rescale loop run.
// (With checks: use-microkernels.mlir.)

// A finite bias: in the call (its last pointer), no guard before it.
// The quantize (symmetric: qmin -127) falls back to its loop, unchecked,
// only when the call refuses a NaN scale (-2).
// CHECK-LABEL: func.func @mixc_net_bias(
// CHECK:         call @mixrt_ukernel_range_f32(
// CHECK:         linalg.generic
// CHECK:         %[[FIRST:.*]] = call @mixrt_ukernel_quantize_f32_s8({{.*}}, %c-127_i32, %{{.*}})
// CHECK:         %[[REFUSED:.*]] = arith.cmpi eq, %[[FIRST]], %c-2_i64 : i64
// CHECK:         scf.if %[[REFUSED]] {
// CHECK:           linalg.generic
// CHECK-NOT:         mixrt_check_fail
// CHECK:         }
// CHECK-NOT:     scf.if
// The weight zero points (symmetric: all 0) are passed as none (NULL).
// CHECK:         %[[NOZB:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[STATUS:.*]] = call @mixrt_ukernel_gemm_s8s8f32(%c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %{{[0-9]+}}, %c3_i64{{[_0-9]*}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[NOZB]], %{{[0-9]+}}, %c2_i64{{[_0-9]*}}, %[[BIASPTR:.*]], %c0_i32{{[_0-9]*}})
// CHECK:         %[[FAILED:.*]] = arith.cmpi ne, %[[STATUS]], %c0_i32{{.*}} : i32
// CHECK:         scf.if %[[FAILED]] {
// CHECK:           func.call @mixrt_ukernel_gemm_s8s8s32(
// CHECK:           linalg.generic
// CHECK-NOT:         mixrt_check_fail
// CHECK:             arith.addf
// CHECK:         }
// CHECK:         return
mix.network @bias precision(int8) (%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %b = mix.weight dense<[0.5, -0.25]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  mix.return %y : tensor<2x2xf32>
}

// Per-column asymmetric weights (zero points -128 and -77): passed to the
// call, no null pointer before it (unlike @bias).
// CHECK-LABEL: func.func @mixc_net_asymmetric_weights(
// CHECK-NOT:     llvm.mlir.zero
// CHECK:         call @mixrt_ukernel_gemm_s8s8f32(
mix.network @asymmetric_weights precision(int8) (%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %b = mix.weight dense<[0.5, -0.25]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b precision(weights = int8<asymmetric, axis = 1>) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  mix.return %y : tensor<2x2xf32>
}

// An infinite bias: the call would turn Inf + -Inf into the canonical NaN,
// the loop keeps the hardware's: the GEMM alone is a call, the rescale stays
// a loop.
// CHECK-LABEL: func.func @mixc_net_infinite_bias(
// CHECK-NOT:     mixrt_ukernel_gemm_s8s8f32
// CHECK:         call @mixrt_ukernel_gemm_s8s8s32(
// CHECK-NOT:     scf.if
// CHECK:         linalg.generic
// CHECK:         return
mix.network @infinite_bias precision(int8) (%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %b = mix.weight dense<[0x7F800000, -0.25]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  mix.return %y : tensor<2x2xf32>
}

// A bias computed at run time (a network input) is not a constant: not fused.
// CHECK-LABEL: func.func @mixc_net_input_bias(
// CHECK-NOT:     mixrt_ukernel_gemm_s8s8f32
// CHECK:         call @mixrt_ukernel_gemm_s8s8s32(
// CHECK:         linalg.generic
// CHECK:         return
mix.network @input_bias precision(int8) (%x: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %y = mix.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  mix.return %y : tensor<2x2xf32>
}
