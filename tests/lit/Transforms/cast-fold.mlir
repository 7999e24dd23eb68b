// RUN: mix-opt %s --canonicalize | FileCheck %s

// CHECK-LABEL: mix.network @folds
mix.network @folds precision(f32) (%h: tensor<4xf16>, %b: tensor<4xbf16>, %s: tensor<4xf32>)
    -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>) {
  // Widening then narrowing back: the identity.
  %0 = mix.cast %h : tensor<4xf16> to tensor<4xf32>
  %1 = mix.cast %0 : tensor<4xf32> to tensor<4xf16>
  // Exact widening then another narrowing: one cast from the source.
  // CHECK: %[[B:.*]] = mix.cast %arg1 : tensor<4xbf16> to tensor<4xf16>
  %2 = mix.cast %b : tensor<4xbf16> to tensor<4xf64>
  %3 = mix.cast %2 : tensor<4xf64> to tensor<4xf16>
  // A cast to the same type vanishes.
  %4 = mix.cast %s : tensor<4xf32> to tensor<4xf32>
  // Narrowing then widening is NOT an identity (it rounds): kept.
  // CHECK: %[[N:.*]] = mix.cast %arg2 checked : tensor<4xf32> to tensor<4xf16>
  // CHECK: %[[W:.*]] = mix.cast %[[N]] : tensor<4xf16> to tensor<4xf32>
  %5 = mix.cast %s checked : tensor<4xf32> to tensor<4xf16>
  %6 = mix.cast %5 : tensor<4xf16> to tensor<4xf32>
  // CHECK: mix.return %arg0, %[[B]], %arg2, %[[W]]
  mix.return %1, %3, %4, %6 : tensor<4xf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>
}

// Integer sources. A cast of an inline integer weight is an inline float
// weight, rounded once (16777217 -> 16777216 in f32; -1 unsigned is 255;
// true is 1; 0x4B800000 is 2^24). An exact integer step (i8 -> f16, i32 -> f64) folds into the
// next cast; an inexact one (i64 -> f32, i32 -> f16) never does. A checked
// cast of a constant that overflows is kept, to report when it runs.
// CHECK-LABEL: mix.network @ints
// CHECK-DAG:   %[[I:.*]] = mix.weight dense<[1.000000e+00, 0x4B800000, -3.000000e+00]> : tensor<3xf32>
// CHECK-DAG:   %[[U:.*]] = mix.weight dense<[2.550000e+02, 1.000000e+00]> : tensor<2xf16>
// CHECK-DAG:   %[[T:.*]] = mix.weight dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG:   %[[BIG:.*]] = mix.weight dense<70000> : tensor<i32>
// CHECK-DAG:   %[[KEPT:.*]] = mix.cast %[[BIG]] checked : tensor<i32> to tensor<f16>
// CHECK-DAG:   %[[C8:.*]] = mix.cast %arg0 unsigned : tensor<4xi8> to tensor<4xbf16>
// CHECK-DAG:   %[[C32:.*]] = mix.cast %arg1 : tensor<4xi32> to tensor<4xf32>
// CHECK-DAG:   %[[N64:.*]] = mix.cast %arg2 : tensor<4xi64> to tensor<4xf32>
// CHECK-DAG:   %[[N16:.*]] = mix.cast %[[N64]] : tensor<4xf32> to tensor<4xf16>
// CHECK-DAG:   %[[H:.*]] = mix.cast %arg1 : tensor<4xi32> to tensor<4xf16>
// CHECK-DAG:   %[[W:.*]] = mix.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK:       mix.return %[[I]], %[[U]], %[[T]], %[[KEPT]], %[[C8]], %[[C32]], %[[N16]], %[[W]]
mix.network @ints precision(f32) (%c: tensor<4xi8>, %i: tensor<4xi32>, %l: tensor<4xi64>)
    -> (tensor<3xf32>, tensor<2xf16>, tensor<2xf32>, tensor<f16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>) {
  %w = mix.weight dense<[1, 16777217, -3]> : tensor<3xi64>
  %0 = mix.cast %w : tensor<3xi64> to tensor<3xf32>
  %u = mix.weight dense<[-1, 1]> : tensor<2xi8>
  %1 = mix.cast %u unsigned : tensor<2xi8> to tensor<2xf16>
  %t = mix.weight dense<[true, false]> : tensor<2xi1>
  %2 = mix.cast %t : tensor<2xi1> to tensor<2xf32>
  %big = mix.weight dense<70000> : tensor<i32>
  %3 = mix.cast %big checked : tensor<i32> to tensor<f16>
  // Exact steps fold: u8 -> f16 -> bf16 is one cast from the u8.
  %h8 = mix.cast %c unsigned : tensor<4xi8> to tensor<4xf16>
  %4 = mix.cast %h8 : tensor<4xf16> to tensor<4xbf16>
  %d = mix.cast %i : tensor<4xi32> to tensor<4xf64>
  %5 = mix.cast %d : tensor<4xf64> to tensor<4xf32>
  // Inexact steps stay.
  %f = mix.cast %l : tensor<4xi64> to tensor<4xf32>
  %6 = mix.cast %f : tensor<4xf32> to tensor<4xf16>
  %h = mix.cast %i : tensor<4xi32> to tensor<4xf16>
  %7 = mix.cast %h : tensor<4xf16> to tensor<4xf32>
  mix.return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xf32>, tensor<2xf16>, tensor<2xf32>, tensor<f16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>
}
