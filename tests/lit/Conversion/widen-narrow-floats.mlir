// RUN: mix-opt %s --mix-widen-narrow-floats --split-input-file | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm --split-input-file | FileCheck %s --check-prefix=LLVM
//
// f16/bf16 arithmetic computes in f32 with one rounding per operation
// (mixc's integer RNE for bf16, arith.truncf for f16); sign operations are
// bit operations; comparisons and conversions to integers read the exact
// extension; an f16 fma computes in f64 and a bf16 one in f32 (as LLVM
// did); selects, constants and conversions from integers are left alone.

// CHECK-LABEL: func.func @bf16_ops(
// CHECK-SAME:    %[[A:.*]]: bf16, %[[B:.*]]: bf16, %[[C:.*]]: bf16)
// CHECK:         %[[A0:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK:         %[[B0:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK:         %[[SUM:.*]] = arith.addf %[[A0]], %[[B0]] : f32
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[SUM]] : f32 to i32
// CHECK:         arith.cmpf uno, %[[SUM]], %[[SUM]] : f32
// CHECK:         %[[R16:.*]] = arith.trunci %{{.*}} : i32 to i16
// CHECK:         %[[ADD:.*]] = arith.bitcast %[[R16]] : i16 to bf16
// CHECK:         %[[A1:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK:         math.exp %[[A1]] : f32
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:         %[[ABITS:.*]] = arith.bitcast %[[A]] : bf16 to i16
// CHECK:         %[[SIGN:.*]] = arith.constant -32768 : i16
// CHECK:         %[[FLIP:.*]] = arith.xori %[[ABITS]], %[[SIGN]] : i16
// CHECK:         %[[NEG:.*]] = arith.bitcast %[[FLIP]] : i16 to bf16
// CHECK:         %[[A2:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK:         %[[B2:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK:         %[[CMP:.*]] = arith.cmpf olt, %[[A2]], %[[B2]] : f32
// CHECK:         %[[A3:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK:         %[[INT:.*]] = arith.fptosi %[[A3]] : f32 to i32
// CHECK:         arith.andi %{{.*}}, %{{.*}} : i16
// CHECK-NOT:     : bf16 to i32
// CHECK:         return %[[ADD]], %{{.*}}, %{{.*}}, %{{.*}}, %[[NEG]], %[[CMP]], %[[INT]], %{{.*}} :
func.func @bf16_ops(%a: bf16, %b: bf16, %c: bf16) -> (bf16, bf16, bf16, bf16, bf16, i1, i32, bf16) {
  %add = arith.addf %a, %b : bf16
  %exp = math.exp %a : bf16
  %max = arith.maximumf %a, %b : bf16
  %fma = math.fma %a, %b, %c : bf16
  %neg = arith.negf %a : bf16
  %cmp = arith.cmpf olt, %a, %b : bf16
  %int = arith.fptosi %a : bf16 to i32
  %abs = math.absf %a : bf16
  return %add, %exp, %max, %fma, %neg, %cmp, %int, %abs : bf16, bf16, bf16, bf16, bf16, i1, i32, bf16
}

// -----

// CHECK-LABEL: func.func @f16_ops(
// CHECK-SAME:    %[[A:.*]]: f16, %[[B:.*]]: f16, %[[C:.*]]: f16)
// CHECK:         %[[A0:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK:         %[[B0:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK:         %[[Q:.*]] = arith.divf %[[A0]], %[[B0]] fastmath<contract> : f32
// CHECK:         %[[DIV:.*]] = arith.truncf %[[Q]] : f32 to f16
// CHECK:         %[[A1:.*]] = arith.extf %[[A]] : f16 to f64
// CHECK:         %[[B1:.*]] = arith.extf %[[B]] : f16 to f64
// CHECK:         %[[C1:.*]] = arith.extf %[[C]] : f16 to f64
// CHECK:         %[[F:.*]] = math.fma %[[A1]], %[[B1]], %[[C1]] : f64
// CHECK:         %[[FMA:.*]] = arith.truncf %[[F]] : f64 to f16
// CHECK:         %[[ABITS:.*]] = arith.bitcast %[[A]] : f16 to i16
// CHECK:         %[[MAG:.*]] = arith.andi %[[ABITS]], %{{.*}} : i16
// CHECK:         %[[BBITS:.*]] = arith.bitcast %[[B]] : f16 to i16
// CHECK:         %[[SIGN:.*]] = arith.andi %[[BBITS]], %{{.*}} : i16
// CHECK:         %[[OR:.*]] = arith.ori %[[MAG]], %[[SIGN]] : i16
// CHECK:         %[[CS:.*]] = arith.bitcast %[[OR]] : i16 to f16
// CHECK:         %[[A2:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK:         %[[S:.*]] = math.sqrt %[[A2]] : f32
// CHECK:         %[[SQ:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK:         return %[[DIV]], %[[FMA]], %[[CS]], %[[SQ]] : f16, f16, f16, f16
func.func @f16_ops(%a: f16, %b: f16, %c: f16) -> (f16, f16, f16, f16) {
  %div = arith.divf %a, %b fastmath<contract> : f16
  %fma = math.fma %a, %b, %c : f16
  %cs = math.copysign %a, %b : f16
  %sq = math.sqrt %a : f16
  return %div, %fma, %cs, %sq : f16, f16, f16, f16
}

// -----

// CHECK-LABEL: func.func @left_alone(
// CHECK-NEXT:    arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    arith.select %{{.*}}, %{{.*}}, %{{.*}} : bf16
// CHECK-NEXT:    arith.constant 1.000000e+00 : bf16
// CHECK-NEXT:    arith.sitofp %{{.*}} : i32 to bf16
// CHECK-NEXT:    return
func.func @left_alone(%a: f32, %b: bf16, %i: i32, %p: i1) -> (f32, bf16, bf16, bf16) {
  %add = arith.addf %a, %a : f32
  %sel = arith.select %p, %b, %b : bf16
  %cst = arith.constant 1.0 : bf16
  %conv = arith.sitofp %i : i32 to bf16
  return %add, %sel, %cst, %conv : f32, bf16, bf16, bf16
}

// -----

// Through the whole pipeline, a bf16 layer leaves no bf16 arithmetic for
// LLVM to legalize (LLVM would round each result with a call to
// __truncsfbf2, or with vcvtneps2bf16, which flushes subnormals).

// LLVM-LABEL: llvm.func internal @mixc_layer_
// LLVM-NOT:     llvm.f{{add|sub|mul|div}} {{.*}} : bf16
// LLVM-NOT:     llvm.intr.{{.*}}) : (bf16
// LLVM:         llvm.fmul {{.*}} : f32
// LLVM-NOT:     llvm.f{{add|sub|mul|div}} {{.*}} : bf16
mix.network @mul precision(bf16) (%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %p = mix.mul %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  mix.return %p : tensor<4xf32>
}
