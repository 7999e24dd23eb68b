// The GEMMs of f32 lstm and gru layers (marked "recurrent_gemm_f32" by the
// lowering: C += A x W^T, W a [N, K] view of the weight) call
// mixrt_ukernel_gemm_f32 with MIXRT_UKERNEL_ACCUMULATE (8) on W^T packed at
// compile time; the f32 weights then go. A gru's z and r rows and its
// candidate's rows write column slices of the [B, 3H] accumulator: ldc 3H.
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-pack-dequantized-weights,mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels{enabled=false})' | FileCheck %s --check-prefix=OFF

// The packed W^T of the lstm: after the 64-byte header, row k = 0 of the
// 16-column panel holds W[0..3][0] = 1, 3, 5, 7 (then 12 zero columns), row
// k = 1 holds 2, 4, 6, 8. R^T: one row, 0.5, 0.25, 0.125, 0.0625.
// CHECK-DAG: memref.global "private" constant @[[R:.*]]_packed_t : memref<128xi8> = dense<"0x4D58554B{{[0-9A-F]+}}0000003F0000803E0000003E0000803D000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000">
// CHECK-DAG: memref.global "private" constant @[[W:.*]]_packed_t : memref<192xi8> = dense<"0x4D58554B{{[0-9A-F]+}}0000803F000040400000A0400000E04000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000040000080400000C04000000041000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000">
// The gru's R^T views (see @gru_reset_first below).
// CHECK-DAG: memref.global "private" constant @{{.*}}_packed_t{{(_[0-9]+)?}} : memref<320xi8> = dense<"0x4D58554B{{[0-9A-F]+}}0000803F0000A0400000104100005041000088410000A8410000C8410000E841
// CHECK-DAG: memref.global "private" constant @{{.*}}_packed_t{{(_[0-9]+)?}} : memref<320xi8> = dense<"0x4D58554B{{[0-9A-F]+}}00000442000014420000244200003442{{0+}}00000842
// CHECK-NOT: memref.global "private" constant @{{.*}} : memref<1x4x{{[12]}}xf32>

// The input GEMM of the 3 steps (M 3, N 4, K 2), then per step the
// recurrent one (M 1, N 4, K 1), both into the gates' accumulator.
// CHECK-LABEL: func.func @mixc_net_lstm_small
// CHECK-NOT:   math.fma
// CHECK-DAG:   %[[M3:.*]] = arith.constant 3 : i64
// CHECK-DAG:   %[[N4:.*]] = arith.constant 4 : i64
// CHECK-DAG:   %[[K2:.*]] = arith.constant 2 : i64
// CHECK:       memref.get_global @[[W]]_packed_t
// CHECK:       %[[ACC:.*]] = arith.constant 8 : i32
// CHECK:       call @mixrt_ukernel_gemm_f32(%[[M3]], %[[N4]], %[[K2]], %{{.*}}, %[[K2]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ACC]])
// CHECK:       scf.for
// CHECK:         memref.get_global @[[R]]_packed_t
// CHECK:         call @mixrt_ukernel_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT:     math.fma
// CHECK-LABEL: func.func @mixc_alloc_lstm_small
// OFF-LABEL:   func.func @mixc_net_lstm_small
// OFF-NOT:     call @mixrt
// OFF-COUNT-2: math.fma
// OFF-NOT:     call @mixrt
// OFF-LABEL:   func.func @mixc_alloc_lstm_small
mix.network @lstm_small precision(f32) (%x: tensor<3x1x2xf32>) -> tensor<1x1x1xf32> {
  %w = mix.weight dense<[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]]> : tensor<1x4x2xf32>
  %r = mix.weight dense<[[[0.5], [0.25], [0.125], [0.0625]]]> : tensor<1x4x1xf32>
  %y:3 = mix.lstm %x, %w, %r : (tensor<3x1x2xf32>, tensor<1x4x2xf32>, tensor<1x4x1xf32>) -> (tensor<3x1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>)
  mix.return %y#1 : tensor<1x1x1xf32>
}

// Batch first with 2 sequences of 2 steps: x's rows are not in the
// accumulator's order, so the input GEMM is one call per sequence (M 2
// steps, N 12, K 3) writing xw[0, :, n, :], rows B * 3H = 24 apart; per
// step z and r (N 8) and the candidate (N 4) are calls writing column
// slices, ldc 12. Their weights are views of R at element offsets 0 and 32:
// row k = 0 of R^T holds R[0..7][0] = 1, 5, ..., 29, and R[8..11][0] = 33,
// 37, 41, 45 (the packed globals checked at the top).
// CHECK-LABEL: func.func @mixc_net_gru_reset_first
// CHECK-NOT:   math.fma
// CHECK:       scf.for
// CHECK-DAG:     %[[S2:.*]] = arith.constant 2 : i64
// CHECK-DAG:     %[[G12:.*]] = arith.constant 12 : i64
// CHECK-DAG:     %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG:     %[[LDX:.*]] = arith.constant 24 : i64
// CHECK:         call @mixrt_ukernel_gemm_f32(%[[S2]], %[[G12]], %[[I3]], %{{.*}}, %[[I3]], %{{.*}}, %{{.*}}, %[[LDX]], %{{.*}}, %{{.*}})
// CHECK:       scf.for
// CHECK-DAG:     %[[B2:.*]] = arith.constant 2 : i64
// CHECK-DAG:     %[[N8:.*]] = arith.constant 8 : i64
// CHECK-DAG:     %[[H4:.*]] = arith.constant 4 : i64
// CHECK-DAG:     %[[LDC:.*]] = arith.constant 12 : i64
// CHECK:         call @mixrt_ukernel_gemm_f32(%[[B2]], %[[N8]], %[[H4]], %{{.*}}, %[[H4]], %{{.*}}, %{{.*}}, %[[LDC]], %{{.*}}, %{{.*}})
// CHECK:         %[[LDC2:.*]] = arith.constant 12 : i64
// CHECK:         call @mixrt_ukernel_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LDC2]], %{{.*}}, %{{.*}})
// CHECK-NOT:     math.fma
// CHECK-LABEL: func.func @mixc_alloc_gru_reset_first
mix.network @gru_reset_first precision(f32) (%x: tensor<2x2x3xf32>) -> tensor<2x1x4xf32> {
  %w = mix.weight dense<0.125> : tensor<1x12x3xf32>
  %r = mix.weight dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0], [21.0, 22.0, 23.0, 24.0], [25.0, 26.0, 27.0, 28.0], [29.0, 30.0, 31.0, 32.0], [33.0, 34.0, 35.0, 36.0], [37.0, 38.0, 39.0, 40.0], [41.0, 42.0, 43.0, 44.0], [45.0, 46.0, 47.0, 48.0]]]> : tensor<1x12x4xf32>
  %y:2 = mix.gru %x, %w, %r {layout = 1 : i64} : (tensor<2x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<2x2x1x4xf32>, tensor<2x1x4xf32>)
  mix.return %y#1 : tensor<2x1x4xf32>
}
