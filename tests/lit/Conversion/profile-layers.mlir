// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg --mlir-print-debuginfo | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels,mix-outline-layers,mix-profile-layers)' | FileCheck %s

// mix-profile-layers brackets each layer of the planned function (one
// source position: an outlined layer function, a microkernel call) by
// mixc_profile_begin/end with the layer's "file:line:col"; the allocating
// entry, which only calls the planned function, is not instrumented.
// CHECK-DAG:   llvm.mlir.global internal constant @[[L1:__mix_str_[0-9a-f]+]]("{{.*}}profile-layers.mlir:26:8\00")
// CHECK-DAG:   llvm.mlir.global internal constant @[[L2:__mix_str_[0-9a-f]+]]("{{.*}}profile-layers.mlir:27:8\00")
// CHECK-DAG:   func.func private @mixc_profile_begin(!llvm.ptr)
// CHECK-DAG:   func.func private @mixc_profile_end(!llvm.ptr)
// CHECK-LABEL: func.func @mixc_net_two(
// CHECK:         %[[A:.*]] = llvm.mlir.addressof @[[L1]]
// CHECK-NEXT:    call @mixc_profile_begin(%[[A]])
// CHECK:         call @mixrt_ukernel_gemm_f32(
// CHECK:         call @mixc_profile_end(%[[A]])
// CHECK:         %[[B:.*]] = llvm.mlir.addressof @[[L2]]
// CHECK-NEXT:    call @mixc_profile_begin(%[[B]])
// CHECK-NEXT:    call @mixc_layer_{{[0-9]+}}(
// CHECK-NEXT:    call @mixc_profile_end(%[[B]])
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @mixc_alloc_two(
// CHECK-NOT:     mixc_profile
// CHECK:         return
mix.network @two precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = mix.weight dense<0.5> : tensor<8x16xf32>
  %y = mix.dense %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %r = mix.relu %y : (tensor<4x16xf32>) -> tensor<4x16xf32>
  mix.return %r : tensor<4x16xf32>
}
