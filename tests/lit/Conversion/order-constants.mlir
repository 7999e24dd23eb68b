// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},mix-order-constants)' | FileCheck %s

// Bufferization numbers its constant globals in the order it visits the
// functions, which varies from run to run with several networks in one
// module (5 runs of it on this file gave 4 different namings).
// mix-order-constants names and places them by first use: the same model,
// the same bytes (tests/lit/Driver/deterministic.test compiles it three
// times).
// CHECK:      memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[3.000000e+00, 4.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_2 : memref<2xf32> = dense<[5.000000e+00, 6.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_3 : memref<2xf32> = dense<[7.000000e+00, 8.000000e+00]>
// CHECK-LABEL: func.func @mixc_net_first(
// CHECK:         memref.get_global @__constant_2xf32 :
// CHECK:         memref.get_global @__constant_2xf32_1 :
// CHECK-LABEL: func.func @mixc_net_second(
// CHECK:         memref.get_global @__constant_2xf32_2 :
// CHECK-LABEL: func.func @mixc_net_third(
// CHECK:         memref.get_global @__constant_2xf32_3 :
mix.network @first precision(f32) (%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = mix.weight dense<[1.0, 2.0]> : tensor<2xf32>
  %b = mix.weight dense<[3.0, 4.0]> : tensor<2xf32>
  %y = mix.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = mix.mul %y, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  mix.return %z : tensor<2xf32>
}
mix.network @second precision(f32) (%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = mix.weight dense<[5.0, 6.0]> : tensor<2xf32>
  %y = mix.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  mix.return %y : tensor<2xf32>
}
mix.network @third precision(f32) (%x: tensor<2xf32>) -> tensor<2xf32> {
  %d = mix.weight dense<[7.0, 8.0]> : tensor<2xf32>
  %y = mix.sub %x, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  mix.return %y : tensor<2xf32>
}
