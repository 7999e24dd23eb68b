// Round trip of integer -> float mix.cast (`unsigned`, `checked`) and of
// integer mix.compare.
// RUN: mix-opt %s | mix-opt | FileCheck %s
// RUN: mix-opt %s --mlir-print-op-generic | mix-opt | FileCheck %s

// CHECK-LABEL: mix.network @ints
// CHECK:       mix.cast %arg0 : tensor<2x8xi64> to tensor<2x8xf32>
// CHECK:       mix.cast %arg1 unsigned checked : tensor<2x8xi8> to tensor<2x8xf16>
// CHECK:       mix.compare %arg0, %{{.*}} {predicate = "gt"} : (tensor<2x8xi64>, tensor<i64>) -> tensor<2x8xi1>
// CHECK:       mix.cast %{{.*}} : tensor<2x8xi1> to tensor<2x8xbf16>
mix.network @ints precision(f32) (%ids: tensor<2x8xi64>, %px: tensor<2x8xi8>)
    -> (tensor<2x8xf32>, tensor<2x8xf16>, tensor<2x8xbf16>) {
  %f = mix.cast %ids : tensor<2x8xi64> to tensor<2x8xf32>
  %h = mix.cast %px unsigned checked : tensor<2x8xi8> to tensor<2x8xf16>
  %zero = mix.weight dense<0> : tensor<i64>
  %m = mix.compare %ids, %zero {predicate = "gt"} : (tensor<2x8xi64>, tensor<i64>) -> tensor<2x8xi1>
  %b = mix.cast %m : tensor<2x8xi1> to tensor<2x8xbf16>
  mix.return %f, %h, %b : tensor<2x8xf32>, tensor<2x8xf16>, tensor<2x8xbf16>
}
