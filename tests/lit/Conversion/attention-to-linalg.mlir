// mix.attention's biases are added to each projection's sum in the
// accumulator type (f32 for this f16 layer, the f16 bias widened), q's and
// o's here; the mask is not cast to the f16 activations (mix-insert-casts
// converts it to the accumulator type: it stays f32) and is read through a
// broadcasting map ([B, 1, 1, S]: (b, 0, 0, j); [S, S]: (i, j); [B, S, S]:
// (b, i, j)) and added to the scaled scores before the causal select.
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts=checked=false --canonicalize --convert-mix-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[PAD:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
// CHECK-DAG: #[[SS:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[BSS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[HEADS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-DAG: #[[KT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>

// CHECK-LABEL: func.func @att(
// CHECK-SAME: %[[B:[^:]*]]: tensor<8xf32>, %[[M:[^:]*]]: tensor<2x1x1x4xf32>
// CHECK:      %[[BQ:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf16>)
// CHECK:      %[[Q:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel"]{{.*}} outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK:      linalg.generic {indexing_maps = [#[[ID3]], #[[BIAS]], #[[ID3]]]{{.*}} ins(%[[Q]], %[[BQ]] : tensor<2x4x8xf32>, tensor<8xf16>) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK:        %[[WIDE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:   arith.addf %{{.*}}, %[[WIDE]] : f32
// k and v have no bias: their contractions follow directly.
// CHECK-NEXT:   linalg.yield
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel"]{{.*}} outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel"]{{.*}} outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK:      linalg.generic {indexing_maps = [#[[ID4]], #[[PAD]], #[[ID4]]]{{.*}} ins(%{{.*}}, %[[M]] : tensor<2x2x4x4xf32>, tensor<2x1x1x4xf32>) outs(%{{.*}} : tensor<2x2x4x4xf32>)
// CHECK:        %[[S:.*]] = arith.mulf
// CHECK-NEXT:   %[[SM:.*]] = arith.addf %[[S]], %{{.*}} : f32
// CHECK:        arith.cmpi ugt
// CHECK:        arith.select %{{.*}}, %{{.*}}, %[[SM]] : f32
// The output projection's bias, then the one rounding to the f16 result.
// CHECK:      linalg.generic {indexing_maps = [#[[ID3]], #[[BIAS]], #[[ID3]]]{{.*}} ins(%{{.*}}, %[[BQ]] : tensor<2x4x8xf32>, tensor<8xf16>) outs(%{{.*}} : tensor<2x4x8xf16>)
// CHECK:        arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:   arith.addf
// CHECK-NEXT:   arith.truncf %{{.*}} : f32 to f16
mix.network @att precision(f16) (%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %m: tensor<2x1x1x4xf32>) -> tensor<2x4x8xf32> {
  %y = mix.attention %x, %w, %w, %w, %w bq(%b) bo(%b) mask(%m) {causal = true, num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x1x1x4xf32>) -> tensor<2x4x8xf32>
  mix.return %y : tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @masks(
// CHECK-SAME: %[[S2:[^:]*]]: tensor<4x4xf32>, %[[S3:[^:]*]]: tensor<2x4x4xf32>
// CHECK:      linalg.generic {indexing_maps = [#[[ID4]], #[[SS]], #[[ID4]]]{{.*}} ins(%{{.*}}, %[[S2]] : tensor<2x2x4x4xf32>, tensor<4x4xf32>)
// CHECK:      linalg.generic {indexing_maps = [#[[ID4]], #[[BSS]], #[[ID4]]]{{.*}} ins(%{{.*}}, %[[S3]] : tensor<2x2x4x4xf32>, tensor<2x4x4xf32>)
mix.network @masks precision(f32) (%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>, %s2: tensor<4x4xf32>, %s3: tensor<2x4x4xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %0 = mix.attention %x, %w, %w, %w, %w mask(%s2) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  %1 = mix.attention %x, %w, %w, %w, %w mask(%s3) {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<2x4x4xf32>) -> tensor<2x4x8xf32>
  mix.return %0, %1 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// f32: the four projections are marked for mixrt's GEMM microkernel
// (gemm_f32, as mix.dense's are). Each head's Q and V are copied into
// contiguous [B*H, S, D] matrices and its K transposed into [B*H, D, S], so
// the scores and the context are batched matmuls marked matmul_f32 (the
// reduction ascending from +0, one fma per step); the context is read back
// as [B, S, H, D].
// CHECK-LABEL: func.func @core(
// CHECK-COUNT-3: mix.ukernel = "gemm_f32"
// CHECK:      %[[QS:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [2, 4, 2, 4]
// CHECK:      %[[QH:.*]] = linalg.generic {indexing_maps = [#[[HEADS]], #[[ID4]]]{{.*}} ins(%[[QS]] : tensor<2x4x2x4xf32>) outs(%{{.*}} : tensor<2x2x4x4xf32>)
// CHECK:      %[[Q3:.*]] = tensor.collapse_shape %[[QH]] {{\[\[}}0, 1], [2], [3]] : tensor<2x2x4x4xf32> into tensor<4x4x4xf32>
// CHECK:      %[[KS:.*]] = tensor.expand_shape
// CHECK:      %[[KH:.*]] = linalg.generic {indexing_maps = [#[[KT]], #[[ID4]]]{{.*}} ins(%[[KS]] : tensor<2x4x2x4xf32>)
// CHECK:      %[[K3:.*]] = tensor.collapse_shape %[[KH]]
// CHECK:      linalg.generic {{.*}} ins(%[[Q3]], %[[K3]] : tensor<4x4x4xf32>, tensor<4x4x4xf32>) outs(%{{.*}} : tensor<4x4x4xf32>) attrs = {mix.ukernel = "matmul_f32"}
// CHECK:        math.fma
// CHECK:      linalg.generic {{.*}} outs(%{{.*}} : tensor<4x4x4xf32>) attrs = {mix.ukernel = "matmul_f32"}
// CHECK:        math.fma
// CHECK:      linalg.generic {indexing_maps = [#[[HEADS]], #[[ID4]]]{{.*}} outs(%{{.*}} : tensor<2x4x2x4xf32>)
// CHECK:      mix.ukernel = "gemm_f32"
mix.network @core precision(f32) (%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<2x4x8xf32> {
  %y = mix.attention %x, %w, %w, %w, %w {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  mix.return %y : tensor<2x4x8xf32>
}
