// The gating and recurrent layers to linalg and scf.
// glu lowers to one linalg.generic over its result reading both halves of
// the input along the axis (a at i, b at i + H), evaluated in f32 and
// rounded once; the overflow check only where the result is narrower than
// the input (|a * sigmoid(b)| <= |a|).
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg | FileCheck %s

// CHECK-DAG: llvm.mlir.global internal constant @[[GLU_MSG:.*]]("glu in f16 overflows\00")

// CHECK-LABEL: func.func @glu_axis0
// CHECK:       linalg.generic
// CHECK-NEXT:  ^bb0(%{{.*}}: f32):
// CHECK-NEXT:    %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:    %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:    %[[A:.*]] = tensor.extract %{{.*}}[%[[I]], %[[J]]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[H:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[IB:.*]] = arith.addi %[[I]], %[[H]] : index
// CHECK-NEXT:    %[[B:.*]] = tensor.extract %{{.*}}[%[[IB]], %[[J]]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %[[B]] : f32
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:    arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[D:.*]] = arith.addf %{{.*}}, %[[E]] : f32
// CHECK-NEXT:    arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[S:.*]] = arith.divf %{{.*}}, %[[D]] : f32
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[A]], %[[S]] : f32
// CHECK-NEXT:    linalg.yield %[[Y]] : f32
// CHECK:       -> tensor<2x3xf32>
mix.network @glu_axis0 precision(f32) (%x: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %0 = mix.glu %x {axis = 0 : i64} : (tensor<4x3xf32>) -> tensor<2x3xf32>
  mix.return %0 : tensor<2x3xf32>
}

// f16 in, f16 out: widened to f32, rounded once, no check.
// CHECK-LABEL: func.func @glu_f16
// CHECK:         arith.extf %{{.*}} : f16 to f32
// CHECK:         %[[Y:.*]] = arith.mulf
// CHECK-NEXT:    %[[R:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT:    linalg.yield %[[R]] : f16
mix.network @glu_f16 precision(f16) (%x: tensor<2x6xf16>) -> tensor<2x3xf16> {
  %0 = mix.glu %x : (tensor<2x6xf16>) -> tensor<2x3xf16>
  mix.return %0 : tensor<2x3xf16>
}

// f32 activations, f16 output: the rounding is checked.
// CHECK-LABEL: func.func @glu_f32_to_f16
// CHECK:         %[[R:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK:         scf.if
// CHECK:           llvm.mlir.addressof @[[GLU_MSG]]
// CHECK:           func.call @mixrt_check_fail
// CHECK:         linalg.yield %[[R]] : f16
mix.network @glu_f32_to_f16 precision(f32) (%x: tensor<2x6xf32>) -> tensor<2x3xf16> {
  %0 = mix.glu %x precision(output = f16) : (tensor<2x6xf32>) -> tensor<2x3xf16>
  mix.return %0 : tensor<2x3xf16>
}

// lstm: the biases (Wb + Rb), then the input GEMM of every step, one
// generic per direction, into [D, S, B, 4H]; per direction an scf.for over the
// steps (the second direction descending) whose recurrent GEMM adds
// h_{t-1} R^T into the step's gate slice in place, and one generic computes
// the gates (i, o, f, c at columns j, H + j, 2H + j, 3H + j) and writes h,
// c and y's slice; y_h and y_c select each direction's final state.
// CHECK-LABEL: func.func @lstm_bidirectional
// CHECK:       %[[BIAS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x2x16xf32>)
// CHECK:         tensor.extract
// CHECK:         %[[RB_COL:.*]] = arith.addi %{{.*}}, %c16
// CHECK:         arith.addf
// Both GEMMs are marked for mixrt's f32 GEMM with accumulation (W a
// [4H, K] slice of the weight, read transposed).
// CHECK:       %[[W0:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [1, 16, 3] [1, 1, 1] : tensor<2x16x3xf32> to tensor<16x3xf32>
// CHECK:       %[[XW0:.*]] = tensor.extract_slice %[[BIAS]][0, 0, 0, 0] [1, 3, 2, 16] [1, 1, 1, 1] : tensor<2x3x2x16xf32> to tensor<3x2x16xf32>
// CHECK:       %[[S0:.*]] = linalg.generic {indexing_maps = [#[[XMAP:.*]], #[[WMAP:.*]], #[[OMAP:.*]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[W0]] : tensor<3x2x3xf32>, tensor<16x3xf32>) outs(%[[XW0]] : tensor<3x2x16xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"}
// CHECK:         math.fma
// CHECK:       %[[XWA:.*]] = tensor.insert_slice %[[S0]] into %[[BIAS]][0, 0, 0, 0] [1, 3, 2, 16]
// CHECK:       %[[W1:.*]] = tensor.extract_slice %{{.*}}[1, 0, 0] [1, 16, 3] [1, 1, 1]
// CHECK:       %[[XW1:.*]] = tensor.extract_slice %[[XWA]][1, 0, 0, 0] [1, 3, 2, 16]
// CHECK:       %[[S1:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W1]] : tensor<3x2x3xf32>, tensor<16x3xf32>) outs(%[[XW1]] : tensor<3x2x16xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"}
// CHECK:       %[[XW:.*]] = tensor.insert_slice %[[S1]] into %[[XWA]][1, 0, 0, 0] [1, 3, 2, 16]
// CHECK:       %[[FWD:.*]]:4 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[XWI:.*]] = %[[XW]], %[[H:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}})
// CHECK:         %[[G0:.*]] = tensor.extract_slice %[[XWI]][0, %[[T]], 0, 0] [1, 1, 2, 16] [1, 1, 1, 1] : tensor<2x3x2x16xf32> to tensor<2x16xf32>
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[H]], %{{.*}} : tensor<2x4xf32>, tensor<16x4xf32>) outs(%[[G0]] : tensor<2x16xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"}
// CHECK:           math.fma
// CHECK:         tensor.insert_slice %[[G]] into %[[XWI]][0, %[[T]], 0, 0]
// CHECK:         %[[YS:.*]] = tensor.extract_slice %[[Y]][%[[T]], 0, 0, 0] [1, 1, 2, 4]
// CHECK:         %[[CELL:.*]]:3 = linalg.generic {{.*}} outs(%[[H]], %[[C]], %[[YS]] : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK-COUNT-3:   math.exp
// CHECK:           math.tanh
// CHECK:           %[[KEPT:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[ADDED:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[CNEW:.*]] = arith.addf %[[KEPT]], %[[ADDED]] : f32
// CHECK:           %[[SQ:.*]] = math.tanh %[[CNEW]] : f32
// CHECK:           %[[HNEW:.*]] = arith.mulf %{{.*}}, %[[SQ]] : f32
// CHECK:           linalg.yield %[[HNEW]], %[[CNEW]], %[[HNEW]] : f32, f32, f32
// CHECK:         tensor.insert_slice %[[CELL]]#2 into %[[Y]][%[[T]], 0, 0, 0]
// CHECK:       scf.for %[[T2:.*]] = {{.*}} iter_args(%{{.*}} = %[[FWD]]#0, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[FWD]]#3)
// CHECK:         %[[BACK:.*]] = arith.subi %c2, %[[T2]] : index
// CHECK:         tensor.extract_slice %{{.*}}[1, %[[BACK]], 0, 0] [1, 1, 2, 16]
// CHECK:       arith.cmpi eq
// CHECK:       arith.select
// CHECK:       return
mix.network @lstm_bidirectional precision(f32) (%x: tensor<3x2x3xf32>, %h0: tensor<2x2x4xf32>) -> (tensor<3x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>) {
  %w = mix.weight dense<0.125> : tensor<2x16x3xf32>
  %r = mix.weight dense<0.0625> : tensor<2x16x4xf32>
  %b = mix.weight dense<0.5> : tensor<2x32xf32>
  %y:3 = mix.lstm %x, %w, %r b(%b) initial_h(%h0) {direction = "bidirectional"} : (tensor<3x2x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>, tensor<2x32xf32>, tensor<2x2x4xf32>) -> (tensor<3x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
  mix.return %y#0, %y#1, %y#2 : tensor<3x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>
}

// An f16 layer keeps an f32 state: its initial state is not rounded, the
// gates and states are f32, only y (and y_h, y_c) are rounded to f16.
// CHECK-LABEL: func.func @lstm_f16_layer
// CHECK:       scf.for
// Its recurrent GEMM (f32 state, f16 weight, f32 accumulator) is marked:
// mixrt's GEMM widens f16 weights exactly, as the loop does.
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4xf32>, tensor<16x4xf16>) outs(%{{.*}} : tensor<1x16xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"}
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         linalg.generic {{.*}} outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf16>)
// CHECK:           %[[H16:.*]] = arith.truncf %[[HN:.*]] : f32 to f16
// CHECK:           linalg.yield %[[HN]], %{{.*}}, %[[H16]] : f32, f32, f16
mix.network @lstm_f16_layer precision(f16) (%x: tensor<2x1x3xf32>, %h0: tensor<1x1x4xf32>) -> tensor<2x1x1x4xf32> {
  %w = mix.weight dense<0.125> : tensor<1x16x3xf32>
  %r = mix.weight dense<0.0625> : tensor<1x16x4xf32>
  %y:3 = mix.lstm %x, %w, %r initial_h(%h0) : (tensor<2x1x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x1x4xf32>) -> (tensor<2x1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
  mix.return %y#0 : tensor<2x1x1x4xf32>
}

// gru with linear_before_reset = 0: per step the recurrent accumulator
// [B, 3H] is zero-filled, h_{t-1} R^T is added for z and r (columns 0..2H),
// r * h_{t-1} is computed into a scratch, and its product with Rh is added
// into the candidate's columns (2H..3H); then one generic writes h and y.
// CHECK-LABEL: func.func @gru_reset_first
// CHECK:       scf.for %[[T:.*]] = {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}, %[[REC:.*]] = %{{.*}}, %[[SCR:.*]] = %{{.*}})
// CHECK:         %[[ZERO:.*]] = linalg.generic {{.*}} outs(%[[REC]] : tensor<2x12xf32>)
// CHECK:         %[[ZR:.*]] = tensor.extract_slice %[[ZERO]][0, 0] [2, 8] [1, 1]
// CHECK:         linalg.generic {{.*}} ins(%[[H]], %{{.*}} : tensor<2x4xf32>, tensor<8x4xf32>) outs(%[[ZR]] : tensor<2x8xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"}
// CHECK:         %[[REC1:.*]] = tensor.insert_slice
// CHECK:         %[[RH:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<2x4xf32>) outs(%[[SCR]] : tensor<2x4xf32>)
// CHECK:         tensor.extract_slice %[[REC1]][0, 8] [2, 4] [1, 1]
// CHECK:         linalg.generic {{.*}} ins(%[[RH]], %{{.*}} : tensor<2x4xf32>, tensor<4x4xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[H]], %{{.*}} : tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK:           arith.subf
// CHECK:       return
mix.network @gru_reset_first precision(f32) (%x: tensor<3x2x3xf32>) -> tensor<3x1x2x4xf32> {
  %w = mix.weight dense<0.125> : tensor<1x12x3xf32>
  %r = mix.weight dense<0.0625> : tensor<1x12x4xf32>
  %b = mix.weight dense<0.5> : tensor<1x24xf32>
  %y:2 = mix.gru %x, %w, %r b(%b) : (tensor<3x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>) -> (tensor<3x1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y#0 : tensor<3x1x2x4xf32>
}
