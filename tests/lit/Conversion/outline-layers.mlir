// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg --mlir-print-debuginfo | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-outline-layers)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm=microkernels=false | FileCheck %s --check-prefix=LLVM
//
// One function per layer; identical layers (the two dense layers: same op,
// shapes and precisions, different weights) share one, the weights being
// arguments. Scalar constants are copied in. (The LLVM run keeps the GEMM
// loops: with microkernels, a dense layer is a call, which stays inline.)
// (--mlir-print-debuginfo: layers are grouped by their source location.)

// CHECK:       func.func private @mixc_layer_0(%{{.*}}: memref<2x8xf32>, %{{.*}}: memref<2x8xf32>, %{{.*}}: memref<8x8xf32>)
// CHECK-NEXT:    arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    linalg.generic
// CHECK:       func.func private @mixc_layer_1(%{{.*}}: memref<2x8xf32>, %{{.*}}: memref<2x8xf32>)
// CHECK:         arith.maximumf
// CHECK-NOT:   func.func private @mixc_layer_2
// CHECK-LABEL: func.func @mixc_net_twice(
// CHECK:         %[[W1:.*]] = memref.get_global @__constant_8x8xf32 : memref<8x8xf32>
// CHECK:         %[[W2:.*]] = memref.get_global @__constant_8x8xf32_0 : memref<8x8xf32>
// CHECK:         call @mixc_layer_0(%{{.*}}, %arg0, %[[W1]])
// CHECK:         call @mixc_layer_1(
// CHECK:         call @mixc_layer_0(%{{.*}}, %{{.*}}, %[[W2]])
// CHECK-NEXT:    call @mixc_layer_1(%{{.*}}, %arg1)
// CHECK-NEXT:    return

// The layer functions stay out of line and out of the object's symbols.
// LLVM: llvm.func internal @mixc_layer_0({{.*}}) attributes {no_inline{{.*}}}
// LLVM: llvm.func internal @mixc_layer_1({{.*}}) attributes {no_inline{{.*}}}
mix.network @twice precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %w1 = mix.weight dense<0.5> : tensor<8x8xf32>
  %w2 = mix.weight dense<0.25> : tensor<8x8xf32>
  %a = mix.dense %x, %w1 : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %b = mix.relu %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %c = mix.dense %b, %w2 : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %d = mix.relu %c : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.return %d : tensor<2x8xf32>
}
