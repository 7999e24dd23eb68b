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
