// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg | FileCheck %s

// Contractions loop over (m, k, n): n innermost (vectorizable), and every
// output still accumulates in k order.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @mlp(%arg0: tensor<2x4xf32>) -> tensor<2x3xf32> attributes {llvm.emit_c_interface}
mix.network @mlp precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<2x4xf32>) -> tensor<2x3xf32> {
    // Operands are rounded to f16 once, at the block's cast.
    // CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf16>)
    // CHECK: arith.truncf %{{.*}} : f32 to f16
    // The cast is checked: an overflow to inf is reported at run time, with
    // the location of the layer that needed the conversion.
    // CHECK: scf.if
    // CHECK: llvm.mlir.addressof @__mix_str_
    // CHECK: func.call @mixrt_check_fail
    // Weights are converted at compile time: the constant is already f16.
    // CHECK-DAG: arith.constant dense<{{.*}}> : tensor<4x3xf16>
    %w = mix.weight dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.5, 2.5, 3.5]]> : tensor<4x3xf32>
    %b = mix.weight dense<[0.5, -0.5, 1.0]> : tensor<3xf32>
    // The dense contraction accumulates in f32 with fma (k is the reduction loop) on
    // f16 operands, then adds the bias and rounds once to f16. The f16 input is
    // widened exactly first (one pass), so the f32 GEMM microkernel takes it.
    // CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4xf16>) outs(%{{.*}} : tensor<2x4xf32>)
    // CHECK-NEXT: ^bb0(%[[X:.*]]: f16, %{{.*}}: f32):
    // CHECK-NEXT: arith.extf %[[X]] : f16 to f32
    // CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3xf32>)
    // CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[WIDE]], %{{.*}} : tensor<2x4xf32>, tensor<4x3xf16>) outs(%[[ACC]] : tensor<2x3xf32>) attrs =  {mix.ukernel = "gemm_f32"}
    // CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f16, %[[C:.*]]: f32):
    // CHECK-NEXT: %[[BE:.*]] = arith.extf %[[B]] : f16 to f32
    // CHECK-NEXT: math.fma %[[A]], %[[BE]], %[[C]] : f32
    // CHECK: arith.addf %{{.*}}, %{{.*}} : f32
    // CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
    %d = mix.dense %a, %w, %b : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    // CHECK: arith.maximumf %{{.*}}, %{{.*}} : f16
    %r = mix.relu %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
    mix.yield %r : tensor<2x3xf32>
  }
  // Softmax in f32: max, exp, sum, divide.
  // CHECK: arith.extf %{{.*}} : f16 to f32
  // CHECK: arith.maximumf
  // CHECK: math.exp
  // CHECK: arith.addf
  // CHECK: arith.divf
  %s = mix.softmax %h : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: return %{{.*}} : tensor<2x3xf32>
  mix.return %s : tensor<2x3xf32>
}
