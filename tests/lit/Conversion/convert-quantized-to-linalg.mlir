// RUN: mix-opt %s -split-input-file --convert-mix-to-linalg | FileCheck %s

// The integer lowering, step by step, with mixrt's arithmetic.
// CHECK-DAG: llvm.mlir.global internal constant @[[WHAT:__mix_str_[0-9a-f]*]]("non-finite value reaches an int8 quantize\00")
// CHECK-DAG: func.func private @mixrt_check_fail(i32, !llvm.ptr, !llvm.ptr, i64, f64)
// CHECK-LABEL: func.func @q
// Quantize: the quotient in f32, round half to even, + zero point, clamp to
// [-127, 127] before narrowing; a non-finite input is reported.
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<f32>, tensor<i32>) outs(%{{.*}} : tensor<2x4xi8>)
// CHECK: %[[QUOT:.*]] = arith.divf
// CHECK-NEXT: %[[RND:.*]] = math.roundeven %[[QUOT]] : f32
// CHECK-NEXT: %[[ZP:.*]] = arith.addf %[[RND]]
// CHECK: arith.constant 1.270000e+02 : f32
// CHECK: arith.constant -1.270000e+02 : f32
// CHECK: arith.maximumf %[[ZP]]
// CHECK: arith.minimumf
// CHECK: scf.if
// CHECK: func.call @mixrt_check_fail(%c3_i32
// CHECK: arith.fptosi %{{.*}} : f32 to i8
// Split K (k_chunk = 3 of K = 4): two i32 contractions on slices...
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 3] [1, 1] : tensor<2x4xi8> to tensor<2x3xi8>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [3, 3] [1, 1] : tensor<4x3xi8> to tensor<3x3xi8>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]{{.*}}outs(%{{.*}} : tensor<2x3xi32>)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK-NEXT: arith.subi
// CHECK-NEXT: arith.extsi %{{.*}} : i8 to i32
// CHECK-NEXT: arith.subi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK: tensor.extract_slice %{{.*}}[0, 3] [2, 1] [1, 1] : tensor<2x4xi8> to tensor<2x1xi8>
// CHECK: tensor.extract_slice %{{.*}}[3, 0] [1, 3] [1, 1] : tensor<4x3xi8> to tensor<1x3xi8>
// ... added exactly in f64 ...
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// ... then rescaled once: (f32)((f64)sa * (f64)sb * acc) + bias in f32.
// CHECK: %[[SB:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT: %[[SA:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[SA]], %[[SB]] : f64
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[S]], %{{.*}} : f64
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[V]] : f64 to f32
// A rescaled value beyond f32 is reported (mixrt_gemm_s8_f32 fails on it).
// CHECK: arith.cmpf oeq
// CHECK: func.call @mixrt_check_fail(%c11_i32
// CHECK: arith.addf %[[T]], %{{.*}} : f32

mix.network @q precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %q, %s, %z = mix.quantize %x symmetric static(scale = 0.5, zero_point = 0) checked : tensor<2x4xf32> -> tensor<2x4xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<1> : tensor<4x3xi8>
  %ws = mix.weight dense<0.25> : tensor<3xf32>
  %wz = mix.weight dense<0> : tensor<3xi32>
  %b = mix.weight dense<1.0> : tensor<3xf32>
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz, %b {k_chunk = 3 : i64} : (tensor<2x4xi8>, tensor<f32>, tensor<i32>, tensor<4x3xi8>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<2x3xf32>
  mix.return %y : tensor<2x3xf32>
}

// -----

// Dynamic asymmetric parameters, as mixrt computes them: lo = min(min x, 0)
// and hi = max(max x, 0) (0-initialised reductions), scale = (hi - lo) / 255
// in f64 rounded once to f32 (at least FLT_MIN), zero point
// round_half_even(-128 - lo / scale) clamped to [-128, 127]; an all-zero
// tensor gets scale 1. qconv2d (one group: one loop over the unpadded input,
// marked conv2d_s8 with its window) reads the zero point for a padded tap,
// sums (x - za) * (w - zw) in i32 and writes NCHW sums the rescale reads in
// order (identity maps).
// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction", "reduction", "reduction"]
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: arith.constant 2.550000e+02 : f64
// CHECK: arith.subf %{{.*}}, %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.constant 1.17549435E-38 : f32
// CHECK: math.roundeven %{{.*}} : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i32
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: arith.select
// CHECK: arith.fptosi %{{.*}} : f32 to i8
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x1x3x3xi8>, tensor<i32>, tensor<2xi32>) outs(%{{.*}} : tensor<1x2x4x4xi32>) attrs = {mix.ukernel = "conv2d_s8", mix.ukernel_window = array<i64: 1, 1, 1, 1, 1, 1, 1, 1>}
// CHECK-NEXT: ^bb0(%[[W:.*]]: i8, %[[ZA:.*]]: i32, %[[ZW:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK: %[[ZP8:.*]] = arith.trunci %[[ZA]] : i32 to i8
// CHECK: %[[X:.*]] = tensor.extract %{{.*}} : tensor<1x1x4x4xi8>
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %[[X]], %[[ZP8]] : i8
// CHECK: %[[XW:.*]] = arith.extsi %[[SEL]] : i8 to i32
// CHECK: %[[XC:.*]] = arith.subi %[[XW]], %[[ZA]] : i32
// CHECK: %[[WW:.*]] = arith.extsi %[[W]] : i8 to i32
// CHECK: %[[WC:.*]] = arith.subi %[[WW]], %[[ZW]] : i32
// CHECK: %[[P:.*]] = arith.muli %[[XC]], %[[WC]] : i32
// CHECK: arith.addi %[[ACC]], %[[P]] : i32
// CHECK: linalg.generic {indexing_maps = [#map, #map1, #map{{[0-9]+}}, #map], {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x2x4x4xi32>, tensor<f32>, tensor<2xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>) attrs = {mix.ukernel = "checked_rescale"}
mix.network @conv precision(f32) (%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %q, %s, %z = mix.quantize %x asymmetric : tensor<1x1x4x4xf32> -> tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<1> : tensor<2x1x3x3xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  %y = mix.qconv2d %q, %s, %z, %w, %ws, %wz {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x4xf32>
  mix.return %y : tensor<1x2x4x4xf32>
}
