// mix-use-microkernels calls the f32 GEMM for a "recurrent_gemm_f32" loop
// only when its maps and body are C[l, n] += A[l, k] x W[n, k] (an fma):
// a loop carrying the mark with other maps (W read as (k, n), C's rows in
// another order than A's, diagonals) or another body keeps its loop.
// RUN: mix-opt %s --mix-use-microkernels | FileCheck %s

memref.global "private" constant @w : memref<4x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> {alignment = 64 : i64}
memref.global "private" constant @sq : memref<3x3xf32> = dense<1.0> {alignment = 64 : i64}

// CHECK-LABEL: func.func @nt
// CHECK-NOT:   linalg.generic
// CHECK:       call @mixrt_ukernel_gemm_f32
func.func @nt(%a: memref<2x3xf32>, %c: memref<2x4xf32>) {
  %w = memref.get_global @w : memref<4x3xf32>
  linalg.generic {indexing_maps = [affine_map<(n, g, k) -> (n, k)>, affine_map<(n, g, k) -> (g, k)>, affine_map<(n, g, k) -> (n, g)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : memref<2x3xf32>, memref<4x3xf32>) outs(%c : memref<2x4xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = math.fma %x, %y, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func.func @w_as_k_by_n
// CHECK-NOT:   call
// CHECK:       linalg.generic
func.func @w_as_k_by_n(%a: memref<2x3xf32>, %c: memref<2x3xf32>) {
  %w = memref.get_global @sq : memref<3x3xf32>
  linalg.generic {indexing_maps = [affine_map<(n, g, k) -> (n, k)>, affine_map<(n, g, k) -> (k, g)>, affine_map<(n, g, k) -> (n, g)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : memref<2x3xf32>, memref<3x3xf32>) outs(%c : memref<2x3xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = math.fma %x, %y, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func.func @rows_swapped
// CHECK-NOT:   call
// CHECK:       linalg.generic
func.func @rows_swapped(%a: memref<2x5x3xf32>, %c: memref<5x2x4xf32>) {
  %w = memref.get_global @w : memref<4x3xf32>
  linalg.generic {indexing_maps = [affine_map<(s, n, g, k) -> (n, s, k)>, affine_map<(s, n, g, k) -> (g, k)>, affine_map<(s, n, g, k) -> (s, n, g)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %w : memref<2x5x3xf32>, memref<4x3xf32>) outs(%c : memref<5x2x4xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = math.fma %x, %y, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// A read as (k, k) (its diagonal), W as (k, k), or a body that is not an
// fma of the two inputs into the accumulator: loops.
// CHECK-LABEL: func.func @a_diagonal
// CHECK-NOT:   call
// CHECK:       linalg.generic
func.func @a_diagonal(%a: memref<3x3xf32>, %c: memref<3x4xf32>) {
  %w = memref.get_global @w : memref<4x3xf32>
  linalg.generic {indexing_maps = [affine_map<(n, g, k) -> (k, k)>, affine_map<(n, g, k) -> (g, k)>, affine_map<(n, g, k) -> (n, g)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : memref<3x3xf32>, memref<4x3xf32>) outs(%c : memref<3x4xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = math.fma %x, %y, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func.func @w_diagonal
// CHECK-NOT:   call
// CHECK:       linalg.generic
func.func @w_diagonal(%a: memref<2x3xf32>, %c: memref<2x3xf32>) {
  %w = memref.get_global @sq : memref<3x3xf32>
  linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (k, k)>, affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "reduction"]} ins(%a, %w : memref<2x3xf32>, memref<3x3xf32>) outs(%c : memref<2x3xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = math.fma %x, %y, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func.func @subtracts
// CHECK-NOT:   call
// CHECK:       linalg.generic
func.func @subtracts(%a: memref<2x3xf32>, %c: memref<2x4xf32>) {
  %w = memref.get_global @w : memref<4x3xf32>
  linalg.generic {indexing_maps = [affine_map<(n, g, k) -> (n, k)>, affine_map<(n, g, k) -> (g, k)>, affine_map<(n, g, k) -> (n, g)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : memref<2x3xf32>, memref<4x3xf32>) outs(%c : memref<2x4xf32>) attrs = {mix.ukernel = "recurrent_gemm_f32"} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.subf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
