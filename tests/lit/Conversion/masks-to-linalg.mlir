// gather (constant or run-time indices) and expand lower to one output-only
// linalg.generic each that reads the input with tensor.extract at the
// computed index (never through an indexing map, never
// tensor.insert_slice); max_pool2d reads its padded input through a dilated
// map, the padding grown for ceil_mode's overhang.
// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts --canonicalize --convert-mix-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[DILATED:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5 * 3)>

// A scalar index: a constant, the axis removed.
// CHECK-LABEL: func.func @gather_scalar
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x3xf32>)
// CHECK:       linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]} outs(
// CHECK-NEXT:  ^bb0(%{{.*}}: f32):
// CHECK-NEXT:    %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:    %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[E:.*]] = tensor.extract %[[X]][%[[I]], %[[C4]], %[[J]]] : tensor<2x5x3xf32>
// CHECK-NEXT:    linalg.yield %[[E]] : f32
// CHECK-NOT:   insert_slice
mix.network @gather_scalar precision(f32) (%x: tensor<2x5x3xf32>) -> tensor<2x3xf32> {
  %0 = mix.gather %x {axis = 1 : i64, indices = dense<4> : tensor<i64>} : (tensor<2x5x3xf32>) -> tensor<2x3xf32>
  mix.return %0 : tensor<2x3xf32>
}

// 2-D indices: a constant table read at the result's indices along them;
// in f16, the input is cast first and the gather copies f16 elements.
// CHECK-LABEL: func.func @gather_table
// CHECK:       %[[T:.*]] = arith.constant dense<{{\[}}[4, 0], [1, 1]]> : tensor<2x2xi64>
// CHECK:       linalg.generic {indexing_maps = [#[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} outs(
// CHECK-NEXT:  ^bb0(%{{.*}}: f16):
// CHECK-NEXT:    %[[A:.*]] = linalg.index 0 : index
// CHECK-NEXT:    %[[B:.*]] = linalg.index 1 : index
// CHECK-NEXT:    %[[C:.*]] = linalg.index 2 : index
// CHECK-NEXT:    %[[K:.*]] = tensor.extract %[[T]][%[[B]], %[[C]]] : tensor<2x2xi64>
// CHECK-NEXT:    %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT:    %[[E:.*]] = tensor.extract %{{.*}}[%[[A]], %[[KI]]] : tensor<2x5xf16>
// CHECK-NEXT:    linalg.yield %[[E]] : f16
mix.network @gather_table precision(f16) (%x: tensor<2x5xf32>) -> tensor<2x2x2xf32> {
  %0 = mix.gather %x {axis = -1 : i64, indices = dense<[[4, 0], [1, 1]]> : tensor<2x2xi64>} : (tensor<2x5xf32>) -> tensor<2x2x2xf32>
  mix.return %0 : tensor<2x2x2xf32>
}

// Run-time indices: the operand read at the result's indices, negative ones
// moved up by the axis' size, then clamped into [0, 4]: the read never
// leaves the input.
// CHECK-LABEL: func.func @gather_runtime
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5xf32>, %[[IDS:.*]]: tensor<3xi32>)
// CHECK:       linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]} outs(
// CHECK-NEXT:  ^bb0(%{{.*}}: f32):
// CHECK-NEXT:    %[[A:.*]] = linalg.index 0 : index
// CHECK-NEXT:    %[[B:.*]] = linalg.index 1 : index
// CHECK-NEXT:    %[[K:.*]] = tensor.extract %[[IDS]][%[[B]]] : tensor<3xi32>
// CHECK-NEXT:    %[[KI:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[KI]], %[[C0]] : index
// CHECK-NEXT:    %[[UP:.*]] = arith.addi %[[KI]], %[[C5]] : index
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[NEG]], %[[UP]], %[[KI]] : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[LO:.*]] = arith.maxsi %[[S]], %[[C0]] : index
// CHECK-NEXT:    %[[AT:.*]] = arith.minsi %[[LO]], %[[C4]] : index
// CHECK-NEXT:    %[[E:.*]] = tensor.extract %[[X]][%[[A]], %[[AT]]] : tensor<2x5xf32>
// CHECK-NEXT:    linalg.yield %[[E]] : f32
mix.network @gather_runtime precision(f32) (%x: tensor<2x5xf32>, %ids: tensor<3xi32>) -> tensor<2x3xf32> {
  %0 = mix.gather %x, %ids {axis = 1 : i64} : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  mix.return %0 : tensor<2x3xf32>
}

// The new leading dimension is not read; the broadcast 1 is read at 0.
// CHECK-LABEL: func.func @expand
// CHECK-SAME:    (%[[X:.*]]: tensor<3x1xf32>)
// CHECK:       linalg.generic {indexing_maps = [#[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} outs(
// CHECK-NEXT:  ^bb0(%{{.*}}: f32):
// CHECK-NEXT:    linalg.index 0 : index
// CHECK-NEXT:    %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:    linalg.index 2 : index
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[E:.*]] = tensor.extract %[[X]][%[[J]], %[[C0]]] : tensor<3x1xf32>
// CHECK-NEXT:    linalg.yield %[[E]] : f32
mix.network @expand precision(f32) (%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = mix.expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  mix.return %0 : tensor<2x3x4xf32>
}

// 7x7, kernel 2, stride 2, dilations [1, 3], ceil_mode: 4 x 3 windows, the
// last ones reaching row and column 7: the input padded with -inf to 8x8.
// CHECK-LABEL: func.func @pool
// CHECK:       %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:       %[[PADDED:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x8x8xf32>)
// CHECK:         arith.select %{{.*}}, %{{.*}}, %[[NEGINF]] : f32
// CHECK:       linalg.generic {indexing_maps = [#[[DILATED]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PADDED]], %{{.*}} : tensor<1x1x8x8xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x1x4x3xf32>)
// CHECK:         arith.maximumf
mix.network @pool precision(f32) (%x: tensor<1x1x7x7xf32>) -> tensor<1x1x4x3xf32> {
  %0 = mix.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 3>, ceil_mode = true} : (tensor<1x1x7x7xf32>) -> tensor<1x1x4x3xf32>
  mix.return %0 : tensor<1x1x4x3xf32>
}

// compare: one broadcasting generic yielding i1; f16 operands (the layer's
// precision, after the casts) extend exactly to f32 and compare there,
// ordered, and `ne` unordered (NaN: false, `ne` true). where: one
// broadcasting generic over the mask and both values selecting with
// arith.select; the i1 mask is never cast.
// CHECK-LABEL: func.func @compare_where
// CHECK-SAME:    (%[[S:.*]]: tensor<2x3xf32>, %[[M:.*]]: tensor<3xf32>)
// CHECK:       %[[M16:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<3xf32>) outs(%{{.*}} : tensor<3xf16>)
// CHECK:       %[[S16:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf16>)
// CHECK:       %[[EQ:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW:.*]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[S16]], %[[M16]] : tensor<2x3xf16>, tensor<3xf16>) outs(%{{.*}} : tensor<2x3xi1>)
// CHECK-NEXT:  ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %{{.*}}: i1):
// CHECK-NEXT:    %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:    %[[BW:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT:    %[[C:.*]] = arith.cmpf oeq, %[[AW]], %[[BW]] : f32
// CHECK-NEXT:    linalg.yield %[[C]] : i1
// CHECK:       %[[NE:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[M]] : tensor<2x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3xi1>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK:       %[[LT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xi1>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-NOT:   mix.cast
// CHECK:       linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ROW]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[EQ]], %[[S]], %[[M]] : tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NEXT:  ^bb0(%[[C:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : f32
// CHECK-NEXT:    linalg.yield %[[R]] : f32
mix.network @compare_where precision(f32) (%s: tensor<2x3xf32>, %m: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %eq = mix.compare %s, %m precision(f16) {predicate = "eq"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %ne = mix.compare %s, %m {predicate = "ne"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %lt = mix.compare %s, %m {predicate = "lt"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %y = mix.where %eq, %s, %m : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %z = mix.where %ne, %s, %m : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %w = mix.where %lt, %y, %z : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return %w, %z : tensor<2x3xf32>, tensor<2x3xf32>
}

// The unordered predicates are arith's (true on NaN); logical: one
// broadcasting generic of i1 with arith.andi/ori/xori, not as xor with true.
// CHECK-LABEL: func.func @logic
// CHECK:       linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xi1>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    %[[U:.*]] = arith.cmpf uge, %{{.*}}, %{{.*}} : f32
// CHECK:       linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xi1>)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    arith.cmpf ult, %{{.*}}, %{{.*}} : f32
// CHECK:       linalg.generic {indexing_maps = [#[[ID2]], #[[ROW2:.*]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<2x3xi1>, tensor<3xi1>) outs(%{{.*}} : tensor<2x3xi1>)
// CHECK-NEXT:  ^bb0(%[[P:.*]]: i1, %[[Q:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT:    %[[R:.*]] = arith.andi %[[P]], %[[Q]] : i1
// CHECK-NEXT:    linalg.yield %[[R]] : i1
// CHECK:       ^bb0
// CHECK-NEXT:    arith.ori
// CHECK:       ^bb0
// CHECK-NEXT:    arith.xori
// CHECK:       ^bb0(%[[N:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT:    %[[T:.*]] = arith.constant true
// CHECK-NEXT:    %[[X:.*]] = arith.xori %[[N]], %[[T]] : i1
// CHECK-NEXT:    linalg.yield %[[X]] : i1
mix.network @logic precision(f32) (%s: tensor<2x3xf32>, %m: tensor<3xf32>) -> tensor<2x3xf32> {
  %u = mix.compare %s, %m {predicate = "uge"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %v = mix.compare %s, %m {predicate = "ult"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %c = mix.compare %m, %m {predicate = "eq"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %and = mix.logical %u, %c {kind = "and"} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %or = mix.logical %and, %v {kind = "or"} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %xor = mix.logical %or, %u {kind = "xor"} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %not = mix.logical %xor {kind = "not"} : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %y = mix.where %not, %s, %m : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  mix.return %y : tensor<2x3xf32>
}

// Integer compare: arith.cmpi with the signed predicate (the unordered
// forms are the ordered ones), no cast of the integer operands. Integer
// casts: i64 -> f32 one arith.sitofp; i1 and unsigned i8 arith.uitofp (0/1,
// 0 .. 255) exactly to f32, then to the result; i64 -> bf16 rounds to odd
// in f64 (sitofp, the error through fptosi, the last bit set when inexact)
// before the one RNE rounding to bf16.
// CHECK-LABEL: func.func @ints
// CHECK-NOT:   mix.cast
// CHECK:       ^bb0(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i1):
// CHECK-NEXT:    arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK:       ^bb0(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i1):
// CHECK-NEXT:    arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:       ^bb0(%[[X:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[X]] : i64 to f32
// CHECK-NEXT:    linalg.yield %[[F]] : f32
// CHECK:       ^bb0(%[[M:.*]]: i1, %{{.*}}: f32):
// CHECK-NEXT:    arith.uitofp %[[M]] : i1 to f32
// CHECK:       ^bb0(%[[P:.*]]: i8, %{{.*}}: f16):
// CHECK-NEXT:    %[[PF:.*]] = arith.uitofp %[[P]] : i8 to f32
// CHECK-NEXT:    arith.truncf %[[PF]] : f32 to f16
// CHECK:       ^bb0(%[[Y:.*]]: i64, %{{.*}}: bf16):
// CHECK-NEXT:    %[[D:.*]] = arith.sitofp %[[Y]] : i64 to f64
// CHECK:         arith.fptosi %[[D]] : f64 to i64
// CHECK:         arith.ori
mix.network @ints precision(f32) (%a: tensor<4xi64>, %b: tensor<4xi32>, %p: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>) {
  %zero = mix.weight dense<0> : tensor<i64>
  %three = mix.weight dense<3> : tensor<i32>
  %gt = mix.compare %a, %zero {predicate = "gt"} : (tensor<4xi64>, tensor<i64>) -> tensor<4xi1>
  %lt = mix.compare %b, %three {predicate = "ult"} : (tensor<4xi32>, tensor<i32>) -> tensor<4xi1>
  %m = mix.logical %gt, %lt {kind = "and"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %f = mix.cast %a : tensor<4xi64> to tensor<4xf32>
  %mf = mix.cast %m : tensor<4xi1> to tensor<4xf32>
  %pf = mix.cast %p unsigned : tensor<4xi8> to tensor<4xf16>
  %bf = mix.cast %a : tensor<4xi64> to tensor<4xbf16>
  mix.return %f, %mf, %pf, %bf : tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>
}
