// log_softmax, layer_norm over trailing axes, group_norm and instance_norm
// lower to linalg.generic: statistics and the epilogue in the accumulator
// type (f32 for f16 layers, f64 for f64 ones), one rounding to the result.
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg | FileCheck %s
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg="checks=false" | FileCheck %s --check-prefix=NOCHECK

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LEAD:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[TRAIL:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[GX:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 * 2 + d2, d3)>
// CHECK-DAG: #[[GEXT:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[GSTAT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-DAG: #[[GREAD:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 2)>
// CHECK-DAG: #[[CHAN:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[IX:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d2, d3, d4)>
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG:.*]]("log_softmax in f16 overflows\00")

// The max in f16 (exact), then x - max, exp, the sum, log and the result in
// f32, one truncation to f16 and the overflow check.
// CHECK-LABEL: func.func @log_softmax_f16
// CHECK:       linalg.generic {indexing_maps = [#[[ID2]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK:       linalg.generic {indexing_maps = [#[[ID2]], #[[COL]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-NEXT:  ^bb0(%[[X:.*]]: f16, %[[M:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT:    %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:    %[[MW:.*]] = arith.extf %[[M]] : f16 to f32
// CHECK-NEXT:    %[[D:.*]] = arith.subf %[[XW]], %[[MW]] : f32
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT:    linalg.yield %[[S]] : f32
// CHECK:       linalg.generic {indexing_maps = [#[[ID2]], #[[COL]], #[[COL]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:  ^bb0(%[[X:.*]]: f16, %[[M:.*]]: f16, %[[SUM:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:    %[[L:.*]] = math.log %[[SUM]] : f32
// CHECK-NEXT:    %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:    %[[MW:.*]] = arith.extf %[[M]] : f16 to f32
// CHECK-NEXT:    %[[D:.*]] = arith.subf %[[XW]], %[[MW]] : f32
// CHECK-NEXT:    %[[Y:.*]] = arith.subf %[[D]], %[[L]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK:         scf.if
// CHECK:           llvm.mlir.addressof @[[MSG]]
// CHECK:           func.call @mixrt_check_fail
// CHECK:         linalg.yield %[[R]] : f16
// NOCHECK-LABEL: func.func @log_softmax_f16
// NOCHECK-NOT:   mixrt_check_fail
// NOCHECK:       return
mix.network @log_softmax_f16 precision(f16) (%x: tensor<3x5xf16>) -> tensor<3x5xf16> {
  %0 = mix.log_softmax %x {axis = 0 : i64} : (tensor<3x5xf16>) -> tensor<3x5xf16>
  mix.return %0 : tensor<3x5xf16>
}

// In f32 nothing is narrower than the accumulator: no check.
// CHECK-LABEL: func.func @log_softmax_f32
// CHECK:       math.log %{{.*}} : f32
// CHECK-NOT:   mixrt_check_fail
// CHECK:       return
mix.network @log_softmax_f32 precision(f32) (%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = mix.log_softmax %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
  mix.return %0 : tensor<3x5xf32>
}

// Axis 1 of [2, 3, 4]: one mean and variance per leading index over 12
// elements; gamma and beta read with the trailing dimensions.
// CHECK-LABEL: func.func @layer_norm_axis1
// CHECK:       linalg.generic {indexing_maps = [#[[ID3]], #[[LEAD]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK:         arith.addf
// CHECK:       arith.constant 1.200000e+01 : f32
// CHECK:       linalg.generic {indexing_maps = [#[[ID3]], #[[LEAD]], #[[LEAD]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK:         math.fma
// CHECK:       linalg.generic {indexing_maps = [#[[ID3]], #[[LEAD]], #[[LEAD]], #[[TRAIL]], #[[TRAIL]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK:         math.sqrt
// CHECK:         %[[Y:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    linalg.yield %[[Y]] : f32
mix.network @layer_norm_axis1 precision(f32) (%x: tensor<2x3x4xf32>, %g: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = mix.layer_norm %x, %g, %b {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  mix.return %0 : tensor<2x3x4xf32>
}

// 3 groups of 2 channels: the statistics' loops (n, g, j, w) read channel
// g * 2 + j, their extent from a shape-only [3, 2] operand; the epilogue
// reads the group's statistics at c floordiv 2 and scale/bias per channel,
// in f32, then one truncation to f16 (no check, as layer_norm).
// CHECK-LABEL: func.func @group_norm_f16
// CHECK:       %[[EXT:.*]] = tensor.empty() : tensor<3x2xf32>
// CHECK:       linalg.generic {indexing_maps = [#[[GX]], #[[GEXT]], #[[GSTAT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %[[EXT]] : tensor<2x6x5xf16>, tensor<3x2xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK:         arith.extf %{{.*}} : f16 to f32
// CHECK:       arith.constant 1.000000e+01 : f32
// CHECK:       linalg.generic {indexing_maps = [#[[GX]], #[[GEXT]], #[[GSTAT]], #[[GSTAT]]]
// CHECK:         math.fma {{.*}} : f32
// CHECK:       linalg.generic {indexing_maps = [#[[ID3]], #[[GREAD]], #[[GREAD]], #[[CHAN]], #[[CHAN]], #[[ID3]]]
// CHECK:         %[[Y:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %[[R:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT:    linalg.yield %[[R]] : f16
// CHECK-NOT:   mixrt_check_fail
// CHECK:       return
mix.network @group_norm_f16 precision(f16) (%x: tensor<2x6x5xf16>, %s: tensor<6xf16>, %b: tensor<6xf16>) -> tensor<2x6x5xf16> {
  %0 = mix.group_norm %x, %s, %b {num_groups = 3 : i64} : (tensor<2x6x5xf16>, tensor<6xf16>, tensor<6xf16>) -> tensor<2x6x5xf16>
  mix.return %0 : tensor<2x6x5xf16>
}

// instance_norm: one group per channel, everything in f64 for f64.
// CHECK-LABEL: func.func @instance_norm_f64
// CHECK:       linalg.generic {indexing_maps = [#[[IX]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK:         arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:       arith.constant 9.000000e+00 : f64
// CHECK:       arith.constant 1.000000e-05 : f64
// CHECK:       math.fma %{{.*}}, %{{.*}}, %{{.*}} : f64
mix.network @instance_norm_f64 precision(f64) (%x: tensor<1x2x3x3xf64>, %s: tensor<2xf64>, %b: tensor<2xf64>) -> tensor<1x2x3x3xf64> {
  %0 = mix.instance_norm %x, %s, %b : (tensor<1x2x3x3xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<1x2x3x3xf64>
  mix.return %0 : tensor<1x2x3x3xf64>
}
