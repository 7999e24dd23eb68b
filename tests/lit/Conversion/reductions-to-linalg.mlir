// reduce_prod multiplies in the accumulator type from 1, in index order
// (one linalg.generic whose reduced loop keeps its position), then rounds
// once to the output: in f16 with the test of a checked cast (a product
// leaves f16's range after a few factors), none with checks off or when
// the output is as wide as the accumulator.
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg | FileCheck %s
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg="checks=false" | FileCheck %s --check-prefix=NOCHECK

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG:.*]]("reduce_prod in f16 overflows\00")

// CHECK-LABEL: func.func @prod_f16
// CHECK:       %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:       %[[INIT:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%{{.*}} : tensor<2x1x4xf32>)
// CHECK:       %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<2x3x4xf16>) outs(%[[INIT]] : tensor<2x1x4xf32>)
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT:    %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[ACC]], %[[W]] : f32
// CHECK-NEXT:    linalg.yield %[[M]] : f32
// CHECK:       linalg.generic {{.*}} ins(%[[P]] : tensor<2x1x4xf32>) outs(%{{.*}} : tensor<2x1x4xf16>)
// CHECK:         arith.truncf %{{.*}} : f32 to f16
// CHECK:         scf.if
// CHECK:           llvm.mlir.addressof @[[MSG]]
// CHECK:           func.call @mixrt_check_fail
// NOCHECK-LABEL: func.func @prod_f16
// NOCHECK-NOT:   reduce_prod in f16 overflows
// NOCHECK-NOT:   mixrt_check_fail
mix.network @prod_f16 precision(f16) (%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = mix.reduce_prod %x {axes = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  mix.return %0 : tensor<2x1x4xf32>
}

// f32 throughout, every axis, keepdims false: no check.
// CHECK-LABEL: func.func @prod_f32
// CHECK:       linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK:       linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK:         arith.mulf
// CHECK-NOT:   mixrt_check_fail
// CHECK:       return
mix.network @prod_f32 precision(f32) (%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = mix.reduce_prod %x {keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  mix.return %0 : tensor<f32>
}
