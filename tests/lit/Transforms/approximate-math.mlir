// RUN: mix-opt %s --mix-approximate-math | FileCheck %s
//
// f32 erf becomes inline code (MLIR's rational approximation), then the
// input's sign is copied onto it (erf(-0) = -0); f32 tanh (also on vectors)
// and exp become inline code too; f64 erf, tanh and exp stay math ops
// (libm's erf, tanh and exp).

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

// The rational approximation on the clamped x, x itself where |x| < 0.0004.
// CHECK-LABEL: func.func @tanh_f32(
// CHECK-SAME:      %[[X:.*]]: vector<8xf32>
// CHECK-NOT:     math.tanh
// CHECK:         %[[LIMIT:.*]] = arith.constant dense<7.99881172> : vector<8xf32>
// CHECK:         %[[LT:.*]] = arith.cmpf ult, %[[X]], %[[LIMIT]]
// CHECK:         %[[TINY:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:         %[[Q:.*]] = arith.divf
// CHECK-NEXT:    %[[T:.*]] = arith.select %[[TINY]], %{{.*}}, %[[Q]]
// CHECK-NEXT:    return %[[T]] : vector<8xf32>
func.func @tanh_f32(%x: vector<8xf32>) -> vector<8xf32> {
  %t = math.tanh %x : vector<8xf32>
  return %t : vector<8xf32>
}

// x = n ln 2 + a: a polynomial of a times 2^n made in the exponent bits;
// a NaN x is selected through (its conversion to i32 is undefined in LLVM).
// CHECK-LABEL: func.func @exp_f32(
// CHECK-SAME:      %[[X:.*]]: f32
// CHECK-NOT:     math.exp
// CHECK:         math.floor
// CHECK:         math.fma
// CHECK:         %[[N:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK:         %[[BITS:.*]] = arith.shli
// CHECK-NEXT:    %[[P2:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT:    %[[E:.*]] = arith.mulf %{{.*}}, %[[P2]] : f32
// CHECK-NEXT:    %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[NAN]], %[[X]], %[[E]] : f32
// CHECK-NEXT:    return %[[R]] : f32
func.func @exp_f32(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}

// CHECK-LABEL: func.func @f64(
// CHECK:         math.tanh %{{.*}} : f64
// CHECK:         math.exp %{{.*}} : f64
func.func @f64(%x: f64) -> (f64, f64) {
  %t = math.tanh %x : f64
  %e = math.exp %x : f64
  return %t, %e : f64, f64
}
