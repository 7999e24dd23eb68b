// RUN: mix-opt %s --mix-plan-memory | FileCheck %s
//
// mix-plan-memory writes an elementwise loop's output over an input that
// dies at it only when every read of that input has the identity map: a
// loop that also reads it transposed (a fused `z + transpose(z)`), through
// another view, or inside its body (a fused slice loads it at other
// indices) would overwrite elements it has yet to read.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// In place: %b over %a (one 256-byte slot).
// CHECK-LABEL: func.func @mixc_net_in_place(
// CHECK-SAME:      memory_plan = {intermediates = 512 : i64, peak = 256 : i64, workspace = 256 : i64}
// CHECK:         %[[A:.*]] = memref.view %{{.*}}[%c0{{.*}}][]
// CHECK:         %[[B:.*]] = memref.view %{{.*}}[%c0{{.*}}][]
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : memref<8x8xf32>) outs(%[[B]] : memref<8x8xf32>)
func.func @mixc_net_in_place(%x: memref<8x8xf32>, %y: memref<8x8xf32>) attributes {llvm.emit_c_interface} {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// %a is also read transposed: %b gets its own slot.
// CHECK-LABEL: func.func @mixc_net_transposed(
// CHECK-SAME:      memory_plan = {intermediates = 512 : i64, peak = 512 : i64, workspace = 512 : i64}
// CHECK:         %[[A:.*]] = memref.view %{{.*}}[%c0{{.*}}][]
// CHECK:         %[[B:.*]] = memref.view %{{.*}}[%c256{{.*}}][]
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[A]] : memref<8x8xf32>, memref<8x8xf32>) outs(%[[B]] : memref<8x8xf32>)
func.func @mixc_net_transposed(%x: memref<8x8xf32>, %y: memref<8x8xf32>) attributes {llvm.emit_c_interface} {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #tr, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// %a is also read through another view of it (its rows collapsed and
// expanded again): its own slot too.
// CHECK-LABEL: func.func @mixc_net_view(
// CHECK-SAME:      peak = 512 : i64
func.func @mixc_net_view(%x: memref<8x8xf32>, %y: memref<8x8xf32>) attributes {llvm.emit_c_interface} {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  %flat = memref.collapse_shape %a [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  %again = memref.expand_shape %flat [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #tr, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %again : memref<8x8xf32>, memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// %a is also loaded inside the body (a fused reversing slice): its own slot.
// CHECK-LABEL: func.func @mixc_net_body_read(
// CHECK-SAME:      peak = 512 : i64
func.func @mixc_net_body_read(%x: memref<8x8xf32>, %y: memref<8x8xf32>) attributes {llvm.emit_c_interface} {
  %c7 = arith.constant 7 : index
  %a = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %r = arith.subi %c7, %j : index
    %v = memref.load %a[%i, %r] : memref<8x8xf32>
    %s = arith.addf %in, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}
