// A weight-only int8 gru: mix-quantize stores w and r in int8 (per gate
// row, shared by the two directions) with a mix.dequantize each;
// mix-pack-dequantized-weights folds the dequantized buffers (no f32
// workspace slot for them) and mix-use-microkernels packs every GEMM's
// view W^T in int8 with its rows' scales (packed type 4,
// MIXRT_UKERNEL_S8_DEQUANTIZED): per direction the input GEMM (K 3) and the
// z, r and candidate rows of R (K 4). Nothing of the weights stays in f32
// or unpacked int8.
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-pack-dequantized-weights,mix-plan-memory,mix-use-microkernels)' | FileCheck %s

// CHECK-COUNT-4: memref.global "private" constant @{{.*}}x12x4xi8_packed_t{{(_[0-9]+)?}} : memref<256xi8> = dense<"0x4D58554B0100000004000000
// CHECK-COUNT-2: memref.global "private" constant @{{.*}}x12x3xi8_packed_t{{(_[0-9]+)?}} : memref<240xi8> = dense<"0x4D58554B0100000004000000
// CHECK-NOT:   memref.global
// CHECK-LABEL: func.func @mixc_net_gru_weight_only
// CHECK-SAME:    workspace = 1216
// CHECK-NOT:     math.fma
// CHECK-COUNT-2: call @mixrt_ukernel_gemm_f32
// CHECK:         scf.for
// CHECK-COUNT-2:   call @mixrt_ukernel_gemm_f32
// CHECK:         scf.for
// CHECK-COUNT-2:   call @mixrt_ukernel_gemm_f32
// CHECK-NOT:     math.fma
// CHECK-LABEL: func.func @mixc_alloc_gru_weight_only
mix.network @gru_weight_only precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x2x2x4xf32> {
  %w = mix.weight dense<[[[0.5, -0.25, 1.0], [0.125, 0.75, -1.0], [0.5, 0.5, 0.5], [1.0, 2.0, 3.0], [-1.0, 0.0, 1.0], [0.25, 0.25, -0.5], [0.5, -0.25, 1.0], [0.125, 0.75, -1.0], [0.5, 0.5, 0.5], [1.0, 2.0, 3.0], [-1.0, 0.0, 1.0], [0.25, 0.25, -0.5]], [[0.5, -0.25, 1.0], [0.125, 0.75, -1.0], [0.5, 0.5, 0.5], [1.0, 2.0, 3.0], [-1.0, 0.0, 1.0], [0.25, 0.25, -0.5], [0.5, -0.25, 1.0], [0.125, 0.75, -1.0], [0.5, 0.5, 0.5], [1.0, 2.0, 3.0], [-1.0, 0.0, 1.0], [0.25, 0.25, -2.5]]]> : tensor<2x12x3xf32>
  %r = mix.weight dense<0.125> : tensor<2x12x4xf32>
  %y:2 = mix.gru %x, %w, %r precision(weights = int8) {direction = "bidirectional"} : (tensor<5x2x3xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  mix.return %y#0 : tensor<5x2x2x4xf32>
}
