// The elementwise math layers lower to one elementwise linalg.generic each,
// evaluated in f32 (f64 for f64 operands) and rounded once to the result
// type. In a reduced-precision layer, a result that can overflow when
// rounded is checked (the test of a checked cast); results in [-1, 1] are not.
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg | FileCheck %s
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg="checks=false" | FileCheck %s --check-prefix=NOCHECK

// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: llvm.mlir.global internal constant @[[EXP_MSG:.*]]("exp in f16 overflows\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[DIV_MSG:.*]]("div in bf16 overflows\00")

// f32: 1 / (1 + exp(-x)) in f32, no widening, no check.
// CHECK-LABEL: func.func @sigmoid_f32
// CHECK:       linalg.generic
// CHECK-NEXT:  ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:    %[[NEG:.*]] = arith.negf %[[IN]] : f32
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT:    %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[Y:.*]] = arith.divf %[[ONE2]], %[[D]] : f32
// CHECK-NEXT:    linalg.yield %[[Y]] : f32
// CHECK-NOT:   mixrt_check_fail
// CHECK:       return
mix.network @sigmoid_f32 precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mix.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %0 : tensor<4xf32>
}

// f16: widened to f32, exp, one rounding to f16, then the overflow check.
// CHECK-LABEL: func.func @exp_f16
// CHECK:       ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:    %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[W]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK:         scf.if
// CHECK:           llvm.mlir.addressof @[[EXP_MSG]]
// CHECK:           func.call @mixrt_check_fail
// CHECK:         linalg.yield %[[R]] : f16
// NOCHECK-LABEL: func.func @exp_f16
// NOCHECK-NOT:   mixrt_check_fail
// NOCHECK:       return
mix.network @exp_f16 precision(f16) (%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = mix.exp %x : (tensor<4xf32>) -> tensor<4xf16>
  mix.return %0 : tensor<4xf16>
}

// tanh's results lie in [-1, 1]: no check even in f16.
// CHECK-LABEL: func.func @tanh_f16
// CHECK:       math.tanh %{{.*}} : f32
// CHECK-NEXT:  arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT:  linalg.yield
mix.network @tanh_f16 precision(f16) (%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = mix.tanh %x : (tensor<4xf16>) -> tensor<4xf16>
  mix.return %0 : tensor<4xf16>
}

// Binary ops broadcast like numpy; bf16 division is checked.
// CHECK-LABEL: func.func @div_bf16
// CHECK:       linalg.generic {indexing_maps = [#{{.*}}, #[[ROW]], #{{.*}}]
// CHECK:       arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:       llvm.mlir.addressof @[[DIV_MSG]]
mix.network @div_bf16 precision(bf16) (%a: tensor<2x3xbf16>, %b: tensor<3xbf16>) -> tensor<2x3xbf16> {
  %0 = mix.div %a, %b : (tensor<2x3xbf16>, tensor<3xbf16>) -> tensor<2x3xbf16>
  mix.return %0 : tensor<2x3xbf16>
}

// Attributes become constants; clip skips an infinite bound.
// CHECK-LABEL: func.func @attributes
// CHECK:       arith.constant 1.250000e-01 : f32
// CHECK:       arith.cmpf oge
// CHECK:       arith.select
// CHECK:       ^bb0
// CHECK-NOT:   arith.maximumf
// CHECK:       arith.constant 6.000000e+00 : f32
// CHECK-NEXT:  arith.minimumf
mix.network @attributes precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mix.leaky_relu %x {alpha = 0.125 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = mix.clip %0 {max = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %1 : tensor<4xf32>
}
