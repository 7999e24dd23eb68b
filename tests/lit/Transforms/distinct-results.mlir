// RUN: mix-opt %s --mix-distinct-results | FileCheck %s
// RUN: mix-opt %s --mix-distinct-results --buffer-results-to-out-params='modify-public-functions hoist-static-allocs' | FileCheck %s --check-prefix=OUT
//
// A buffer a public function returns again gets a copy of its own for each
// repeat; the first stays. Upstream's hoist-static-allocs then makes every
// allocation its out-parameter (without this pass it crashed on @twice,
// using the allocation it had erased for the first result).

// CHECK-LABEL: func.func @twice
// CHECK:         %[[R:.*]] = memref.alloc() : memref<1x2xf32>
// CHECK:         %[[C1:.*]] = memref.alloc() : memref<1x2xf32>
// CHECK-NEXT:    memref.copy %[[R]], %[[C1]] : memref<1x2xf32> to memref<1x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = memref.alloc() : memref<1x2xf32>
// CHECK-NEXT:    memref.copy %[[R]], %[[C2]] : memref<1x2xf32> to memref<1x2xf32>
// CHECK-NEXT:    return %[[R]], %[[C1]], %[[C2]]
// OUT-LABEL: func.func @twice(
// OUT-SAME:      %[[O0:[^:]*]]: memref<1x2xf32>, %[[O1:[^:]*]]: memref<1x2xf32>, %[[O2:[^:]*]]: memref<1x2xf32>)
// OUT-NOT:       memref.alloc
// OUT:           linalg.fill ins(%{{.*}} : f32) outs(%[[O0]] : memref<1x2xf32>)
// OUT-NEXT:      memref.copy %[[O0]], %[[O1]]
// OUT-NEXT:      memref.copy %[[O0]], %[[O2]]
// OUT-NEXT:      return
func.func @twice() -> (memref<1x2xf32>, memref<1x2xf32>, memref<1x2xf32>) {
  %one = arith.constant 1.0 : f32
  %r = memref.alloc() : memref<1x2xf32>
  linalg.fill ins(%one : f32) outs(%r : memref<1x2xf32>)
  return %r, %r, %r : memref<1x2xf32>, memref<1x2xf32>, memref<1x2xf32>
}

// Dynamic sizes are those of the returned buffer.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    %[[A:.*]]: memref<?x4xf32>
// CHECK:         %[[D:.*]] = memref.dim %[[A]], %c0 : memref<?x4xf32>
// CHECK-NEXT:    %[[C:.*]] = memref.alloc(%[[D]]) : memref<?x4xf32>
// CHECK-NEXT:    memref.copy %[[A]], %[[C]]
// CHECK-NEXT:    return %[[A]], %[[C]]
func.func @dynamic(%a: memref<?x4xf32>) -> (memref<?x4xf32>, memref<?x4xf32>) {
  return %a, %a : memref<?x4xf32>, memref<?x4xf32>
}

// Distinct buffers and scalars are left alone.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT:     memref.copy
// CHECK:         return %arg0, %arg1, %arg2, %arg2 : memref<2xf32>, memref<2xf32>, index, index
func.func @distinct(%a: memref<2xf32>, %b: memref<2xf32>, %i: index) -> (memref<2xf32>, memref<2xf32>, index, index) {
  return %a, %b, %i, %i : memref<2xf32>, memref<2xf32>, index, index
}
// A private function too (buffer-results-to-out-params rewrites it).
// CHECK-LABEL: func.func private @private
// CHECK:         %[[C:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    memref.copy %arg0, %[[C]]
// CHECK-NEXT:    return %arg0, %[[C]]
func.func private @private(%a: memref<2xf32>) -> (memref<2xf32>, memref<2xf32>) {
  return %a, %a : memref<2xf32>, memref<2xf32>
}

// A strided layout with a static offset: the copy is an identity-layout
// buffer cast back to it, if a cast can; here it cannot.
// CHECK-LABEL: func.func @strided
// CHECK:         %[[C:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    memref.copy %arg0, %[[C]]
// CHECK-NEXT:    %[[S:.*]] = memref.cast %[[C]] : memref<2xf32> to memref<2xf32, strided<[?], offset: ?>>
// CHECK-NEXT:    return %arg0, %[[S]]
func.func @strided(%a: memref<2xf32, strided<[?], offset: ?>>) -> (memref<2xf32, strided<[?], offset: ?>>, memref<2xf32, strided<[?], offset: ?>>) {
  return %a, %a : memref<2xf32, strided<[?], offset: ?>>, memref<2xf32, strided<[?], offset: ?>>
}
