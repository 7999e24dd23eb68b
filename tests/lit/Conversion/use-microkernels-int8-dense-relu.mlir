// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,mix-fuse-elementwise,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm="stop-after=linalg checked=false" | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,mix-fuse-elementwise,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s --check-prefix=UNCHECKED
//
// A relu right after an int8 dense runs in the epilogue of its one
// mixrt_ukernel_gemm_s8s8f32 call (flags MIXRT_UKERNEL_RELU = 1), which
// then writes the relu's buffer. When the call refuses its arguments, the
// i32 GEMM, the rescale loop and the relu loop run as before. Without
// checks, mix-fuse-elementwise leaves a qdense's rescale alone (fused with
// the layer after it, it would no longer be the call's epilogue).

// CHECK-LABEL: func.func @mixc_net_relu(
// CHECK-SAME:      %[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<4x2xf32>
// CHECK:         scf.if {{.*}} -> (i32) {
// CHECK:         } else {
// CHECK:           memref.extract_strided_metadata %[[Y]]
// CHECK:           %[[OUT:.*]] = llvm.inttoptr
// CHECK:           %[[BIAS:.*]] = llvm.inttoptr
// CHECK:           call @mixrt_ukernel_gemm_s8s8f32({{.*}}, %[[OUT]], %c2_i64{{[_0-9]*}}, %[[BIAS]], %c1_i32)
// CHECK:         }
// CHECK:         scf.if
// CHECK:           call @mixrt_ukernel_gemm_s8s8s32(
// CHECK:           linalg.generic {{.*}} outs(%[[SCALED:.*]] : memref<4x2xf32>)
// CHECK:             call @mixrt_check_fail
// CHECK:           linalg.generic {{.*}} ins(%[[SCALED]] : memref<4x2xf32>) outs(%[[Y]] : memref<4x2xf32>)
// CHECK-NEXT:      ^bb0
// CHECK-NEXT:        arith.maximumf
// CHECK-NEXT:        linalg.yield
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// UNCHECKED-LABEL: func.func @mixc_net_relu(
// UNCHECKED-SAME:      %[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<4x2xf32>
// UNCHECKED:         memref.extract_strided_metadata %[[Y]]
// UNCHECKED:         %[[OUT:.*]] = llvm.inttoptr
// UNCHECKED:         %[[BIAS:.*]] = llvm.inttoptr
// UNCHECKED:         call @mixrt_ukernel_gemm_s8s8f32({{.*}}, %[[OUT]], %c2_i64{{[_0-9]*}}, %[[BIAS]], %c1_i32)
// UNCHECKED:         scf.if
// UNCHECKED:           call @mixrt_ukernel_gemm_s8s8s32(
// UNCHECKED:           linalg.generic {{.*}} outs(%[[SCALED:.*]] : memref<4x2xf32>)
// UNCHECKED:           linalg.generic {{.*}} ins(%[[SCALED]] : memref<4x2xf32>) outs(%[[Y]] : memref<4x2xf32>)
// UNCHECKED-NEXT:      ^bb0
// UNCHECKED-NEXT:        arith.maximumf
// UNCHECKED-NEXT:        linalg.yield
// UNCHECKED-NEXT:      }
// UNCHECKED-NEXT:    }
// UNCHECKED-NEXT:    return
mix.network @relu precision(f32) (%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = mix.weight dense<[[0.5, -0.25], [0.75, 1.0], [-1.0, 0.125]]> : tensor<3x2xf32>
  %b = mix.weight dense<[0.25, -0.5]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b precision(int8) : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %r = mix.relu %y : (tensor<4x2xf32>) -> tensor<4x2xf32>
  mix.return %r : tensor<4x2xf32>
}

// The network returns the dense layer too: the call writes it (flags 0),
// and the relu stays its own loop after the call.
// CHECK-LABEL: func.func @mixc_net_both(
// CHECK-SAME:      %[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<4x2xf32>, %[[R:.*]]: memref<4x2xf32>
// CHECK:           memref.extract_strided_metadata %[[Y]]
// CHECK:           call @mixrt_ukernel_gemm_s8s8f32({{.*}}, %c0_i32{{[_0-9]*}})
// CHECK:         scf.if
// CHECK:           call @mixrt_ukernel_gemm_s8s8s32(
// CHECK:           linalg.generic {{.*}} outs(%[[Y]] : memref<4x2xf32>)
// CHECK:             linalg.yield
// CHECK-NEXT:        }
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[Y]] : memref<4x2xf32>) outs(%[[R]] : memref<4x2xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.maximumf
mix.network @both precision(f32) (%x: tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = mix.weight dense<[[0.5, -0.25], [0.75, 1.0], [-1.0, 0.125]]> : tensor<3x2xf32>
  %y = mix.dense %x, %w precision(int8) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %r = mix.relu %y : (tensor<4x2xf32>) -> tensor<4x2xf32>
  mix.return %y, %r : tensor<4x2xf32>, tensor<4x2xf32>
}

// Not a relu (gelu): the call keeps the rescale alone (flags 0), also
// without checks, where the rescale would otherwise have fused with the
// gelu.
// CHECK-LABEL: func.func @mixc_net_gelu(
// CHECK:           call @mixrt_ukernel_gemm_s8s8f32({{.*}}, %c0_i32{{[_0-9]*}})
// CHECK:         scf.if
// CHECK:           call @mixrt_ukernel_gemm_s8s8s32(
// CHECK:             linalg.yield
// CHECK-NEXT:        }
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic
// CHECK:           math.erf
// UNCHECKED-LABEL: func.func @mixc_net_gelu(
// UNCHECKED:         call @mixrt_ukernel_gemm_s8s8f32({{.*}}, %c0_i32{{[_0-9]*}})
// UNCHECKED:         scf.if
// UNCHECKED:           call @mixrt_ukernel_gemm_s8s8s32(
// UNCHECKED:             linalg.yield
// UNCHECKED-NEXT:        }
// UNCHECKED-NEXT:    }
// UNCHECKED-NEXT:    linalg.generic
// UNCHECKED:           math.erf
mix.network @gelu precision(f32) (%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = mix.weight dense<[[0.5, -0.25], [0.75, 1.0], [-1.0, 0.125]]> : tensor<3x2xf32>
  %y = mix.dense %x, %w precision(int8) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %r = mix.gelu %y : (tensor<4x2xf32>) -> tensor<4x2xf32>
  mix.return %r : tensor<4x2xf32>
}
