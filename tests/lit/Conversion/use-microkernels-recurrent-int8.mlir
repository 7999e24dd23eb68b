// A weight-only int8 gru: mix-quantize stores w and r in int8 (per gate
// row, shared by the two directions) with a mix.dequantize each;
// mix-pack-dequantized-weights folds the dequantized buffers (no f32
// workspace slot for them) and mix-use-microkernels packs every GEMM's
// view W^T in int8 with its rows' scales (packed type 4,
// MIXRT_UKERNEL_S8_DEQUANTIZED): per direction the input GEMM (K 3) and the
// z, r and candidate rows of R (K 4). Nothing of the weights stays in f32
// or unpacked int8.
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-pack-dequantized-weights,mix-plan-memory,mix-use-microkernels)' | FileCheck %s

// CHECK-NOT:   {{(xi8|xf32|_dequantized) : memref}}
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
  %r = mix.weight dense<[[[0.246, 0.484, 0.59, 0.885], [0.96, 1.689, -1.884, -0.138], [2.66, 0.894, 2.405, -2.321], [-0.247, -2.027, 0.35, 0.592], [-4.869, -2.833, -2.205, 4.163], [3.189, -4.085, 3.566, -4.335], [1.644, -5.226, -6.975, 5.2], [-4.649, -4.552, 7.719, 5.959], [-3.793, 8.307, 0.706, 3.201], [-5.904, 8.82, 3.813, 9.331], [8.662, -4.427, -3.054, -7.349], [-8.503, -10.437, -4.767, 2.475]], [[-0.993, 0.356, -0.324, -0.38], [1.274, -0.077, -0.737, -0.075], [1.228, -2.658, 2.851, -2.863], [1.998, 2.759, -3.855, 2.302], [-1.338, 0.785, -4.909, -4.533], [-3.829, 5.462, -3.642, 3.069], [6.015, 6.189, -2.179, -2.033], [0.395, 4.41, -6.271, 3.974], [5.35, 6.474, -8.341, 8.024], [-8.176, -3.185, 2.217, 8.362], [-3.521, 9.332, 0.993, -4.126], [-4.397, -7.741, -10.123, -8.427]]]> : tensor<2x12x4xf32>
  %y:2 = mix.gru %x, %w, %r precision(weights = int8) {direction = "bidirectional"} : (tensor<5x2x3xf32>, tensor<2x12x3xf32>, tensor<2x12x4xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>)
  mix.return %y#0 : tensor<5x2x2x4xf32>
}
