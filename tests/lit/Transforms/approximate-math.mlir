// RUN: mix-opt %s --mix-approximate-math | FileCheck %s
//
// f32 erf becomes inline code (MLIR's rational approximation), then the
// input's sign is copied onto it (erf(-0) = -0); f64 erf stays a math.erf
// (libm's erf).

// CHECK-LABEL: func.func @erf_f32(
// CHECK-SAME:      %[[X:.*]]: f32
// CHECK-NOT:     math.erf
// CHECK:         math.fma
// CHECK:         arith.divf
// CHECK:         %[[E:.*]] = arith.select
// CHECK:         %[[S:.*]] = math.copysign %{{.*}}, %[[X]] : f32
// CHECK-NEXT:    return %[[S]] : f32
func.func @erf_f32(%x: f32) -> f32 {
  %e = math.erf %x : f32
  return %e : f32
}

// CHECK-LABEL: func.func @erf_f64(
// CHECK:         %[[E:.*]] = math.erf %{{.*}} : f64
// CHECK-NEXT:    return %[[E]] : f64
func.func @erf_f64(%x: f64) -> f64 {
  %e = math.erf %x : f64
  return %e : f64
}
