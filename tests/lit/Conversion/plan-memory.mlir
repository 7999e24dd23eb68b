// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: mix-opt %s --mix-lower-to-llvm=allocating-entry=false | FileCheck %s --check-prefix=NOALLOC
//
// Every intermediate buffer becomes a view of one workspace argument, at an
// offset planned from liveness. The relus write in place of the dense
// outputs they consume (same size, elementwise, last use); the second dense
// cannot reuse the first relu's buffer, which the add still reads: two
// 128-byte slots, exactly the liveness bound.

// CHECK-LABEL: func.func @mixc_net_chain(
// CHECK-SAME:      %{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4x8xf32>, %[[WS:.*]]: memref<256xi8>)
// CHECK-SAME:      mix.memory_plan = {intermediates = 512 : i64, peak = 256 : i64, workspace = 256 : i64}
// CHECK-NOT:   memref.alloc
// CHECK:       %[[A:.*]] = memref.view %[[WS]][%c0{{.*}}][] : memref<256xi8> to memref<4x8xf32>
// CHECK:       %[[B:.*]] = memref.view %[[WS]][%c0{{.*}}][] : memref<256xi8> to memref<4x8xf32>
// CHECK:       ins(%[[A]] : memref<4x8xf32>) outs(%[[B]] : memref<4x8xf32>)
// CHECK:       %[[C:.*]] = memref.view %[[WS]][%c128{{.*}}][] : memref<256xi8> to memref<4x8xf32>
// CHECK:       %[[D:.*]] = memref.view %[[WS]][%c128{{.*}}][] : memref<256xi8> to memref<4x8xf32>
// CHECK:       ins(%[[C]] : memref<4x8xf32>) outs(%[[D]] : memref<4x8xf32>)
// CHECK:       ins(%[[D]], %[[B]] : memref<4x8xf32>, memref<4x8xf32>) outs(%{{.*}} : memref<4x8xf32>)
// CHECK-NOT:   memref.alloc
// CHECK:       return

// The convenience entry allocates the workspace around the call.
// CHECK-LABEL: func.func @mixc_alloc_chain(%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4x8xf32>)
// CHECK:       %[[W:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
// CHECK:       call @mixc_net_chain(%{{.*}}, %{{.*}}, %[[W]])

// After the whole phase: the planned function calls no malloc; the public C
// interfaces are _mlir_ciface_chain (allocating) and
// _mlir_ciface_mixc_net_chain (workspace last).
// LLVM-LABEL: llvm.func @mixc_net_chain(
// LLVM-NOT:   llvm.call @malloc
// LLVM:       llvm.return
// LLVM-DAG:   llvm.func @_mlir_ciface_mixc_net_chain(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM-DAG:   llvm.func @_mlir_ciface_chain(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)

// Without the allocating entry (freestanding code, mixc --freestanding):
// only the workspace entry, and nothing in the module calls the heap.
// NOALLOC-NOT: malloc
// NOALLOC-NOT: @free
// NOALLOC-NOT: mixc_alloc_chain
// NOALLOC-NOT: _mlir_ciface_chain(
// NOALLOC:     llvm.func @_mlir_ciface_mixc_net_chain(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// NOALLOC-NOT: malloc
// NOALLOC-NOT: @free
// NOALLOC-NOT: mixc_alloc_chain
// NOALLOC-NOT: _mlir_ciface_chain(
mix.network @chain precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w = mix.weight dense<0.5> : tensor<8x8xf32>
  %a = mix.dense %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b = mix.relu %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = mix.dense %b, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %d = mix.relu %c : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = mix.add %d, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  mix.return %e : tensor<4x8xf32>
}
