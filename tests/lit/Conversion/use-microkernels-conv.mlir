// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | FileCheck %s --check-prefix=MARK
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,mix-fuse-elementwise,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels{enabled=false})' | FileCheck %s --check-prefix=OFF
//
// A one-group conv2d with f32 activations, accumulator and weight and at
// least 64 output positions per image: no padded copy, no im2col buffer, no
// transposes. The lowering's loop reads the
// unpadded input in its body at channel c (clamped tensor.extract, +0
// selected outside the image), is marked "conv2d_f32" with its window
// (strides, dilations, padding top, left, bottom, right);
// mix-use-microkernels replaces it (and the zero fill before it) by one call
// of mixrt_ukernel_conv2d_f32 on the unpadded input and the weight
// [F, C, KH, KW] as it is, which writes the NCHW output. The epilogue
// right after a one-group call runs inside it when it is + bias, relu or
// both and its output cannot overlap the input (@conv_relu); otherwise it
// stays a loop after the call (@conv: caller buffers may overlap;
// @conv_residual: an add in the epilogue). Without the rewrite the loop
// stays correct (OFF). Grouped convolutions: one call of
// mixrt_ukernel_conv2d_grouped_f32 (@grouped).

mix.network @conv precision(f32) (%x: tensor<1x2x15x17xf32>) -> tensor<1x3x8x8xf32> {
  %w = mix.weight dense<0.5> : tensor<3x2x3x3xf32>
  %b = mix.weight dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %y = mix.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 1, 1>} : (tensor<1x2x15x17xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  mix.return %y : tensor<1x3x8x8xf32>
}

// conv + bias + relu (the caller's input, a workspace output), then a 1x1
// conv + relu without a bias into the caller's output.
mix.network @conv_relu precision(f32) (%x: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = mix.weight dense<0.5> : tensor<4x2x3x3xf32>
  %b = mix.weight dense<[0.5, -1.0, 2.0, -3.0]> : tensor<4xf32>
  %w2 = mix.weight dense<-0.25> : tensor<4x4x1x1xf32>
  %y = mix.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = mix.relu %y : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y2 = mix.conv2d %r, %w2 : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r2 = mix.relu %y2 : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  mix.return %r2 : tensor<1x4x8x8xf32>
}

// A residual add in the epilogue: not the kernel's, the loop stays.
mix.network @conv_residual precision(f32) (%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = mix.weight dense<0.5> : tensor<4x4x1x1xf32>
  %b = mix.weight dense<[0.5, -1.0, 2.0, -3.0]> : tensor<4xf32>
  %a = mix.relu %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = mix.conv2d %a, %w, %b : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %s = mix.add %y, %a : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  mix.return %s : tensor<1x4x8x8xf32>
}

// The conv's sums are a network output too (a caller buffer): the call
// must write them, so the relu stays a loop reading them.
mix.network @conv_and_relu precision(f32) (%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) {
  %w = mix.weight dense<0.5> : tensor<4x4x1x1xf32>
  %a = mix.relu %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = mix.conv2d %a, %w : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = mix.relu %y : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  mix.return %y, %r : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
}

// A 1x1 layer of two images.
mix.network @pointwise precision(f32) (%x: tensor<2x4x8x8xf32>) -> tensor<2x8x8x8xf32> {
  %w = mix.weight dense<0.25> : tensor<8x4x1x1xf32>
  %y = mix.conv2d %x, %w : (tensor<2x4x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<2x8x8x8xf32>
  mix.return %y : tensor<2x8x8x8xf32>
}

// Fewer than 64 output positions per image (7 x 7): the im2col GEMMs,
// whose rows are the positions.
mix.network @small_plane precision(f32) (%x: tensor<1x16x7x7xf32>) -> tensor<1x32x7x7xf32> {
  %w = mix.weight dense<0.25> : tensor<32x16x1x1xf32>
  %y = mix.conv2d %x, %w : (tensor<1x16x7x7xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x7x7xf32>
  mix.return %y : tensor<1x32x7x7xf32>
}

// An f16 weight keeps the im2col GEMMs (the weight packed in f16).
mix.network @half_weight precision(f32) (%x: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = mix.weight dense<0.5> : tensor<4x2x3x3xf32>
  %y = mix.conv2d %x, %w precision(weights = f16) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  mix.return %y : tensor<1x4x4x4xf32>
}

// Two groups (C = 8, F = 6: 4 input channels and 3 filters each) of two
// images: the loop reads input channel f / 3 * 4 + c; then one call of
// mixrt_ukernel_conv2d_grouped_f32 (N = 2, C = 8, F = 6, groups = 2) on the
// whole input, weight and output.
mix.network @grouped precision(f32) (%x: tensor<2x8x10x10xf32>) -> tensor<2x6x10x10xf32> {
  %w = mix.weight dense<0.5> : tensor<6x4x3x3xf32>
  %y = mix.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x8x10x10xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x10x10xf32>
  mix.return %y : tensor<2x6x10x10xf32>
}

// Grouped with fewer than 64 output positions: still the grouped call (the
// im2col GEMMs are one group only).
mix.network @grouped_small precision(f32) (%x: tensor<1x8x7x7xf32>) -> tensor<1x6x7x7xf32> {
  %w = mix.weight dense<0.5> : tensor<6x4x3x3xf32>
  %y = mix.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x7x7xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x7x7xf32>
  mix.return %y : tensor<1x6x7x7xf32>
}

// matmul of two activations (network inputs): with a batch, one call per
// batch in a loop, the operands offset by a batch's elements (A 4 x 8, B
// 8 x 3, C 4 x 3); without, one call.
mix.network @product precision(f32) (%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>) -> tensor<2x4x3xf32> {
  %y = mix.matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  mix.return %y : tensor<2x4x3xf32>
}

mix.network @product2d precision(f32) (%a: tensor<5x6xf32>, %b: tensor<6x7xf32>) -> tensor<5x7xf32> {
  %y = mix.matmul %a, %b : (tensor<5x6xf32>, tensor<6x7xf32>) -> tensor<5x7xf32>
  mix.return %y : tensor<5x7xf32>
}

// An f16 operand (activations = f16): the loops.
mix.network @product_f16 precision(f32) (%a: tensor<5x6xf32>, %b: tensor<6x7xf32>) -> tensor<5x7xf32> {
  %y = mix.matmul %a, %b precision(activations = f16) : (tensor<5x6xf32>, tensor<6x7xf32>) -> tensor<5x7xf32>
  mix.return %y : tensor<5x7xf32>
}

// MARK-LABEL: func.func @conv(
// MARK-SAME:      %[[X:.*]]: tensor<1x2x15x17xf32>
// MARK-NOT:     tensor<1x2x17x18xf32>
// MARK:         linalg.fill
// MARK:         linalg.generic {{.*}}["parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]} ins(%{{.*}} : tensor<3x2x3x3xf32>) outs(%{{.*}} : tensor<1x3x8x8xf32>) attrs = {mix.ukernel = "conv2d_f32", mix.ukernel_window = array<i64: 2, 2, 1, 1, 1, 0, 1, 1>}
// MARK:           %[[N:.*]] = linalg.index 0 : index
// MARK-NEXT:      %[[C:.*]] = linalg.index 2 : index
// MARK:           %[[V:.*]] = tensor.extract %[[X]][%[[N]], %[[C]],
// MARK:           %[[S:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// MARK:           math.fma %[[S]], %{{.*}}, %{{.*}} : f32
// MARK:         linalg.generic
// MARK:           arith.addf
// MARK-LABEL: func.func @pointwise(
// MARK:         mix.ukernel = "conv2d_f32", mix.ukernel_window = array<i64: 1, 1, 1, 1, 0, 0, 0, 0>
// MARK-LABEL: func.func @small_plane(
// MARK-NOT:     conv2d_f32
// MARK:         mix.ukernel = "gemm_f32"
// MARK-LABEL: func.func @half_weight(
// MARK-NOT:     conv2d_f32
// MARK:         mix.ukernel = "gemm_f32"
// MARK-LABEL: func.func @grouped(
// MARK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<6x4x3x3xf32>) outs(%{{.*}} : tensor<2x6x10x10xf32>) attrs = {mix.ukernel = "conv2d_f32", mix.ukernel_window = array<i64: 1, 1, 1, 1, 1, 1, 1, 1>}
// MARK:           %[[GN:.*]] = linalg.index 0 : index
// MARK-NEXT:      %[[GC:.*]] = linalg.index 2 : index
// MARK-NEXT:      %[[GF:.*]] = linalg.index 1 : index
// MARK-NEXT:      %[[C3:.*]] = arith.constant 3 : index
// MARK-NEXT:      %[[GG:.*]] = arith.divui %[[GF]], %[[C3]] : index
// MARK-NEXT:      %[[C4:.*]] = arith.constant 4 : index
// MARK-NEXT:      %[[GFIRST:.*]] = arith.muli %[[GG]], %[[C4]] : index
// MARK-NEXT:      %[[GCH:.*]] = arith.addi %[[GFIRST]], %[[GC]] : index
// MARK:           tensor.extract %{{.*}}[%[[GN]], %[[GCH]],
// MARK-LABEL: func.func @grouped_small(
// MARK:         mix.ukernel = "conv2d_f32"

// CHECK-DAG:   func.func private @mixrt_ukernel_conv2d_f32(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i32) -> i32
// CHECK-DAG:   func.func private @mixrt_ukernel_conv2d_grouped_f32(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i32) -> i32

// N = 1, C = 2, the unpadded 15 x 17 input -- the network's argument
// itself, no copy --, F = 3, 3x3, strides 2, 2, dilations 1, 1, padding 1,
// 0, 1, 1, the 8 x 8 output; no bias in the call (the epilogue adds it).
// CHECK-LABEL: func.func @mixc_net_conv(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x2x15x17xf32>
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     linalg.generic
// CHECK:         arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 15 : i64
// CHECK-NEXT:    arith.constant 17 : i64
// CHECK:         memref.extract_strided_metadata %[[X]] :
// CHECK:         %[[IN:.*]] = llvm.inttoptr
// CHECK-NEXT:    arith.constant 3 : i64
// CHECK-NEXT:    arith.constant 3 : i64
// CHECK-NEXT:    arith.constant 3 : i64
// CHECK:         arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 2 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 0 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 8 : i64
// CHECK-NEXT:    arith.constant 8 : i64
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @mixrt_ukernel_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[IN]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %{{.*}})
// CHECK-NOT:     math.fma
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         return

// The bias (a constant) and MIXRT_UKERNEL_RELU (1) in the first call, which
// writes the relu's output; relu alone (a null bias) in the second, which
// writes the caller's output; no loop is left.
// CHECK-LABEL: func.func @mixc_net_conv_relu(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x2x8x8xf32>, %[[Y:[^:]*]]: memref<1x4x8x8xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[B:.*]] = memref.get_global @{{.*}} : memref<4xf32>
// CHECK:         memref.extract_strided_metadata %[[B]]
// CHECK:         %[[BP:.*]] = llvm.inttoptr
// CHECK:         %[[RELU:.*]] = arith.constant 1 : i32
// CHECK:         call @mixrt_ukernel_conv2d_f32({{.*}}, %[[BP]], %[[RELU]])
// CHECK-NOT:     linalg.generic
// CHECK:         memref.extract_strided_metadata %[[Y]]
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[RELU2:.*]] = arith.constant 1 : i32
// CHECK:         call @mixrt_ukernel_conv2d_f32({{.*}}, %[[NULL]], %[[RELU2]])
// CHECK-NOT:     linalg.generic
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_conv_residual(
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[NONE:.*]] = arith.constant 0 : i32
// CHECK:         call @mixrt_ukernel_conv2d_f32({{.*}}, %[[NULL]], %[[NONE]])
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:           arith.addf
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_conv_and_relu(
// CHECK-SAME:      %{{[^:]*}}: memref<1x4x8x8xf32>, %[[Y:[^:]*]]: memref<1x4x8x8xf32>, %[[R:[^:]*]]: memref<1x4x8x8xf32>
// CHECK:         memref.extract_strided_metadata %[[Y]]
// CHECK:         %[[NONE:.*]] = arith.constant 0 : i32
// CHECK:         call @mixrt_ukernel_conv2d_f32({{.*}}, %[[NONE]])
// CHECK:         linalg.generic {{.*}} ins(%[[Y]] : memref<1x4x8x8xf32>) outs(%[[R]] : memref<1x4x8x8xf32>)
// CHECK:           arith.maximumf
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_pointwise(
// CHECK:         call @mixrt_ukernel_conv2d_f32(
// CHECK-NOT:     math.fma
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_small_plane(
// CHECK-NOT:     mixrt_ukernel_conv2d_f32
// CHECK:         call @mixrt_ukernel_gemm_f32(
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_half_weight(
// CHECK-NOT:     mixrt_ukernel_conv2d_f32
// CHECK:         call @mixrt_ukernel_gemm_f32(
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_grouped(
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     scf.for
// CHECK:         %[[N:.*]] = arith.constant 2 : i64
// CHECK-NEXT:    %[[C:.*]] = arith.constant 8 : i64
// CHECK:         %[[IN:.*]] = llvm.inttoptr
// CHECK-NEXT:    %[[F:.*]] = arith.constant 6 : i64
// CHECK-NEXT:    %[[G:.*]] = arith.constant 2 : i64
// CHECK:         %[[W:.*]] = llvm.inttoptr
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    call @mixrt_ukernel_conv2d_grouped_f32(%[[N]], %[[C]], %{{.*}}, %{{.*}}, %[[IN]], %[[F]], %[[G]], %{{.*}}, %{{.*}}, %[[W]], {{.*}}, %[[NULL]], %[[NONE]])
// CHECK-NOT:     scf.for
// CHECK-NOT:     mixrt_ukernel_conv2d_f32
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_grouped_small(
// CHECK-NOT:     scf.for
// CHECK:         call @mixrt_ukernel_conv2d_grouped_f32(
// CHECK-NOT:     math.fma
// CHECK:         return

// MARK-LABEL: func.func @product(
// MARK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<2x8x3xf32>) outs(%{{.*}} : tensor<2x4x3xf32>) attrs = {mix.ukernel = "matmul_f32"}
// MARK-LABEL: func.func @product_f16(
// MARK-NOT:     matmul_f32
// MARK:         return

// CHECK-LABEL: func.func @mixc_net_product(
// CHECK-NOT:     linalg.fill
// CHECK:         scf.for %[[I:.*]] = %c0 to %c2 step %c1 {
// CHECK:           %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK:           %[[OB:.*]] = arith.muli %[[I64]], %c24_i64 : i64
// CHECK:           llvm.getelementptr %{{.*}}[%[[OB]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:           %[[OA:.*]] = arith.muli %[[I64]], %c32_i64 : i64
// CHECK:           llvm.getelementptr %{{.*}}[%[[OA]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:           %[[OC:.*]] = arith.muli %[[I64]], %c12_i64 : i64
// CHECK:           llvm.getelementptr %{{.*}}[%[[OC]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:           func.call @mixrt_ukernel_conv2d_f32(
// CHECK:         }
// CHECK-NOT:     linalg.generic
// CHECK:         return

// One image of K = 6 channels of a 1 x 7 plane, F = 5 (A's rows), 1x1.
// CHECK-LABEL: func.func @mixc_net_product2d(
// CHECK-NOT:     scf.for
// CHECK:         arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 6 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 7 : i64
// CHECK:         arith.constant 5 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK:         call @mixrt_ukernel_conv2d_f32(
// CHECK-NOT:     linalg.generic
// CHECK:         return

// CHECK-LABEL: func.func @mixc_net_product_f16(
// CHECK-NOT:     mixrt_ukernel_conv2d_f32
// CHECK:         return

// OFF-NOT:     call @mixrt_ukernel_conv2d_f32
// OFF-LABEL: func.func @mixc_net_conv(
// OFF:         math.fma
// OFF-NOT:     call @mixrt_ukernel_conv2d_f32
