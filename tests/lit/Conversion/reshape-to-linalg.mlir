// RUN: mix-opt %s --convert-mix-to-linalg | FileCheck %s
//
// A reshape goes through one dimension: collapse everything, expand to the
// result. A rank-0 tensor becomes one element by an expansion with no
// reassociation group, and comes back by a collapse with none (collapsing
// a rank-0 tensor crashed the lowering).

// CHECK-LABEL: func.func @to_rank0(
// CHECK-SAME:      %[[X:.*]]: tensor<1x1xf32>
// CHECK:         %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
// CHECK-NEXT:    %[[S:.*]] = tensor.collapse_shape %[[F]] [] : tensor<1xf32> into tensor<f32>
// CHECK-NEXT:    return %[[S]] : tensor<f32>
mix.network @to_rank0 precision(f32) (%x: tensor<1x1xf32>) -> tensor<f32> {
  %r = mix.reshape %x {shape = array<i64>} : (tensor<1x1xf32>) -> tensor<f32>
  mix.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @from_rank0(
// CHECK-SAME:      %[[X:.*]]: tensor<f32>
// CHECK:         %[[F:.*]] = tensor.expand_shape %[[X]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK-NEXT:    %[[S:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1, 2]] output_shape [1, 1, 1] : tensor<1xf32> into tensor<1x1x1xf32>
// CHECK-NEXT:    return %[[S]] : tensor<1x1x1xf32>
mix.network @from_rank0 precision(f32) (%x: tensor<f32>) -> tensor<1x1x1xf32> {
  %r = mix.reshape %x {shape = array<i64: 1, 1, 1>} : (tensor<f32>) -> tensor<1x1x1xf32>
  mix.return %r : tensor<1x1x1xf32>
}

// A flatten from rank 0 to one element: the expansion alone.
// CHECK-LABEL: func.func @flatten_rank0(
// CHECK-SAME:      %[[X:.*]]: tensor<f16>
// CHECK:         %[[F:.*]] = tensor.expand_shape %[[X]] [] output_shape [1] : tensor<f16> into tensor<1xf16>
// CHECK-NEXT:    return %[[F]] : tensor<1xf16>
mix.network @flatten_rank0 precision(f16) (%x: tensor<f16>) -> tensor<1xf16> {
  %r = mix.flatten %x {start_dim = 0 : i64} : (tensor<f16>) -> tensor<1xf16>
  mix.return %r : tensor<1xf16>
}
