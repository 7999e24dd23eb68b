// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-pack-dequantized-weights,mix-plan-memory,mix-use-microkernels)' | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-plan-memory,mix-use-microkernels{enabled=false})' | FileCheck %s --check-prefix=OFF
// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | mix-opt --pass-pipeline='builtin.module(mix-mangle-network-symbols,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},cse,canonicalize,buffer-results-to-out-params{modify-public-functions hoist-static-allocs},mix-pack-dequantized-weights,mix-plan-memory,mix-use-microkernels)' | FileCheck %s --check-prefix=PACK
//
// The GEMM of a dense layer with a constant weight becomes a call of mixrt's
// microkernel; the weight is packed at compile time (a 64-byte header "MXUK"
// then 16-column panels) and the unpacked global is dropped. The bias
// epilogue moves into the call when its output cannot overlap the input.

// CHECK-DAG:   func.func private @mixrt_ukernel_gemm_f32(i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i32) -> i32
// CHECK-DAG:   func.func private @mixrt_ukernel_gemm_s8s8s32(i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32) -> i32
// CHECK-DAG:   func.func private @mixrt_ukernel_gemm_s8s8f32(i64, i64, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i32) -> i32
// The packed weights: 64 header bytes + K x 16 floats (f32) or halves (f16).
// CHECK-DAG:   memref.global "private" constant @[[W1:__constant_3x2xf32[_0-9]*]]_packed : memref<256xi8> = dense<"0x4D58554B{{[0-9A-F]*}}"> {alignment = 64 : i64}
// CHECK-DAG:   memref.global "private" constant @{{.*}}_packed : memref<160xi8>
// The int8 weight: 64 + 4 (K rounded up to 4) x 16 bytes + 16 column sums.
// CHECK-DAG:   memref.global "private" constant @{{.*}}_packed : memref<192xi8>
// The original f32 weights are gone; the bias, the matmul's operand stay.
// CHECK-NOT:   memref.global "private" constant @[[W1]] :

// f32 weights, bias and relu fused (flags MIXRT_UKERNEL_RELU = 1): M = 4,
// N = 2, K = 3, lda = 3, ldc = 2; the relu's result is the caller's buffer,
// which the call writes; the input is a workspace view.
// CHECK-LABEL: func.func @mixc_net_f32(
// CHECK-SAME:      %[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<4x2xf32>
// CHECK:         arith.maximumf
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     linalg.generic
// CHECK:         %[[C4:.*]] = arith.constant 4 : i64
// CHECK:         %[[C2:.*]] = arith.constant 2 : i64
// CHECK:         %[[C3:.*]] = arith.constant 3 : i64
// CHECK:         %[[A:.*]] = llvm.inttoptr
// CHECK:         memref.get_global @[[W1]]_packed
// CHECK:         %[[B:.*]] = llvm.inttoptr
// CHECK:         memref.extract_strided_metadata %[[Y]]
// CHECK:         %[[C:.*]] = llvm.inttoptr
// CHECK:         %[[BIAS:.*]] = llvm.inttoptr
// CHECK:         %[[FLAGS:.*]] = arith.constant 1 : i32
// CHECK:         call @mixrt_ukernel_gemm_f32(%[[C4]], %[[C2]], %[[C3]], %[[A]], %[[C3]], %[[B]], %[[C]], %[[C2]], %[[BIAS]], %[[FLAGS]])
// CHECK-NEXT:    return
mix.network @f32 precision(f32) (%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %b = mix.weight dense<[0.5, -1.0]> : tensor<2xf32>
  %h = mix.relu %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = mix.dense %h, %w, %b : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %r = mix.relu %y : (tensor<4x2xf32>) -> tensor<4x2xf32>
  mix.return %r : tensor<4x2xf32>
}

// No bias: the relu right after the GEMM runs in the call; a network that
// returns the dense layer too keeps its relu loop (the call writes the
// dense's output, flags 0).
// CHECK-LABEL: func.func @mixc_net_f32_no_bias(
// CHECK-SAME:      %[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<4x2xf32>
// CHECK:         memref.extract_strided_metadata %[[Y]]
// CHECK:         %[[C:.*]] = llvm.inttoptr
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @mixrt_ukernel_gemm_f32({{.*}}, %[[C]], %{{.*}}, %[[NULL]], %c1_i32)
// CHECK-NEXT:    return
mix.network @f32_no_bias precision(f32) (%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %h = mix.neg %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = mix.dense %h, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %r = mix.relu %y : (tensor<4x2xf32>) -> tensor<4x2xf32>
  mix.return %r : tensor<4x2xf32>
}
// CHECK-LABEL: func.func @mixc_net_f32_both(
// CHECK-SAME:      %[[X:.*]]: memref<4x3xf32>, %[[Y:.*]]: memref<4x2xf32>, %[[R:.*]]: memref<4x2xf32>
// CHECK:         call @mixrt_ukernel_gemm_f32({{.*}}, %c0_i32)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[Y]] : memref<4x2xf32>) outs(%[[R]] : memref<4x2xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.maximumf
mix.network @f32_both precision(f32) (%x: tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %h = mix.neg %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = mix.dense %h, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %r = mix.relu %y : (tensor<4x2xf32>) -> tensor<4x2xf32>
  mix.return %y, %r : tensor<4x2xf32>, tensor<4x2xf32>
}

// f16 weights (f32 activations and accumulator): packed as f16. The input
// and the output are both the caller's: the bias is not fused (they could
// overlap), it stays a loop after the call.
// CHECK-LABEL: func.func @mixc_net_f16_weights(
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @mixrt_ukernel_gemm_f32({{.*}}, %[[NULL]], %{{.*}})
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         return
mix.network @f16_weights precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %b = mix.weight dense<[0.5, -1.0]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b precision(weights = f16) : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  mix.return %y : tensor<2x2xf32>
}

// int8: the range of the dynamic quantization is a call; so is the
// quantize (mixrt_ukernel_quantize_f32_s8 with the loaded scale and zero
// point, qmin -128 for the asymmetric scheme), the checked loop kept for
// when the call returns anything but -1 (a non-finite input to report, or
// a refused NaN scale). The exact int8 GEMM and its rescale epilogue
// are one call of mixrt_ukernel_gemm_s8s8f32 (dynamic activation zero point,
// one value; symmetric weights: no weight zero points), skipped when sa *
// max(sb) * 2^31 could overflow f32 (a checked rescale must report it). When
// skipped, or when the call refuses the scales (a NaN sa), the GEMM into the
// i32 accumulator and the checked rescale loop run as before.
// CHECK-LABEL: func.func @mixc_net_int8(
// CHECK:         call @mixrt_ukernel_range_f32(
// CHECK-NOT:     call @mixrt_ukernel_range_f32(
// CHECK:         %[[SCALE:.*]] = memref.load
// CHECK:         %[[ZP:.*]] = memref.load
// CHECK:         %[[FIRST:.*]] = call @mixrt_ukernel_quantize_f32_s8(%{{.*}}, %c6_i64{{[_0-9]*}}, %[[SCALE]], %[[ZP]], %c-128_i32, %{{.*}})
// CHECK:         %[[FALLBACK:.*]] = arith.cmpi ne, %[[FIRST]], %c-1_i64 : i64
// CHECK:         scf.if %[[FALLBACK]] {
// CHECK:           linalg.generic
// CHECK:             func.call @mixrt_check_fail
// CHECK:         }
// CHECK:         %[[SA:.*]] = memref.load
// CHECK:         %[[SAWIDE:.*]] = arith.extf %[[SA]] : f32 to f64
// CHECK:         %[[BOUND:.*]] = arith.mulf %[[SAWIDE]]
// CHECK:         %[[ABS:.*]] = math.absf %[[BOUND]] : f64
// CHECK:         %[[OVERFLOW:.*]] = arith.cmpf uge, %[[ABS]], %{{.*}} : f64
// CHECK:         %[[STATUS:.*]] = scf.if %[[OVERFLOW]] -> (i32) {
// CHECK:           scf.yield %c3_i32{{.*}} : i32
// CHECK:         } else {
// CHECK:           %[[CALL:.*]] = func.call @mixrt_ukernel_gemm_s8s8f32(%c2_i64{{[_0-9]*}}, %c2_i64{{[_0-9]*}}, %c3_i64{{[_0-9]*}}, %{{.*}}, %c3_i64{{[_0-9]*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i64{{[_0-9]*}}, %{{.*}}, %c0_i32{{[_0-9]*}})
// CHECK:           scf.yield %[[CALL]] : i32
// CHECK:         }
// CHECK:         %[[FAILED:.*]] = arith.cmpi ne, %[[STATUS]], %c0_i32{{.*}} : i32
// CHECK:         scf.if %[[FAILED]] {
// CHECK:           func.call @mixrt_ukernel_gemm_s8s8s32(
// CHECK:           linalg.generic
// CHECK:             func.call @mixrt_check_fail
// CHECK:         }
// CHECK-NOT:     linalg.generic
// CHECK:         return
mix.network @int8 precision(int8<asymmetric>) (%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0], [3.0, 0.125]]> : tensor<3x2xf32>
  %y = mix.dense %x, %w precision(weights = int8) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  mix.return %y : tensor<2x2xf32>
}

// Not constant weights (a network input): nothing to pack, so the dense
// layer is a product of two activations, as the matmul after it: both call
// mixrt_ukernel_conv2d_f32 as a 1x1 convolution (use-microkernels-conv.mlir)
// -- B [3, 2] the input (3 channels of a 1 x 2 plane), A [2, 3] the weight.
// CHECK-LABEL: func.func @mixc_net_not_constant(
// CHECK-NOT:     call @mixrt_ukernel_gemm
// CHECK:         call @mixrt_ukernel_conv2d_f32(%c1_i64, %c3_i64, %c1_i64{{.*}}, %c2_i64, %{{.*}}, %c2_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %{{.*}}, %c1_i64
// CHECK-NOT:     call @mixrt_ukernel_gemm
// CHECK:         call @mixrt_ukernel_conv2d_f32(
// CHECK:         return
mix.network @not_constant precision(f32) (%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %z: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = mix.dense %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %m = mix.matmul %y, %z : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  mix.return %m : tensor<2x2xf32>
}

// Weight-only int8 (mix-quantize's dequantize before the dense): up to 32
// rows the int8 weight is packed with its scales and zero points -- the
// header (magic "MXUK", version 1, type 4 = S8_DEQUANTIZED, 16 columns, K
// 3, N 4, 48 bytes per panel, 1 panel, then 0: no zero point is not 0),
// 3 x 16 bytes of values, 16 scales, 16 zero points (240 bytes) --
// and mixrt_ukernel_gemm_f32 dequantizes it; the dequantize loop, the
// float weight and the parameters' globals are gone. From 33 rows: the
// dequantize loop and the product of two activations.
// PACK-NOT: _dequantized
// PACK: memref.global "private" constant @__constant_3x4xi8{{(_[0-9]+)?}}_packed : memref<240xi8> = dense<"0x4D58554B0100000004000000100000000300000000000000040000000000000030000000000000000100000000000000000000000000000000000000000000007F817F15
// CHECK-LABEL: func.func @mixc_net_w8_small(
// CHECK-SAME:      workspace = 0
// CHECK-NOT:     linalg.generic
// CHECK:         memref.get_global @__constant_3x4xi8{{(_[0-9]+)?}}_packed : memref<240xi8>
// CHECK:         call @mixrt_ukernel_gemm_f32(%c2_i64, %c4_i64, %c3_i64,
// CHECK-NOT:     linalg.generic
// CHECK:         return
mix.network @w8_small precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = mix.weight dense<[[1.0, -2.0, 3.0, 0.5], [0.25, 1.5, -1.0, 2.0], [-0.5, 0.75, 1.25, -3.0]]> : tensor<3x4xf32>
  %y = mix.dense %x, %w precision(weights = int8) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  mix.return %y : tensor<2x4xf32>
}

// The dequantized weight is also a result of the network (its buffer is
// the caller's): the dequantize loop must write it, so nothing is folded;
// the dense is the product of two activations.
// CHECK-LABEL: func.func @mixc_net_w8_returned(
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<3x4xi8>, memref<4xf32>, memref<4xi32>) outs(%arg1 : memref<3x4xf32>)
// CHECK-NOT:     call @mixrt_ukernel_gemm_f32
// CHECK:         call @mixrt_ukernel_conv2d_f32(
// CHECK:         return
mix.network @w8_returned precision(f32) (%x: tensor<2x3xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>) {
  %q = mix.weight dense<[[127, -2, 3, 5], [1, 2, -128, 4], [0, 7, 8, 9]]> : tensor<3x4xi8>
  %s = mix.weight dense<0.5> : tensor<4xf32>
  %z = mix.weight dense<0> : tensor<4xi32>
  %w = mix.dequantize %q, %s, %z axis(1) : (tensor<3x4xi8>, tensor<4xf32>, tensor<4xi32>) -> tensor<3x4xf32>
  %y = mix.dense %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  mix.return %w, %y : tensor<3x4xf32>, tensor<2x4xf32>
}

// CHECK-LABEL: func.func @mixc_net_w8_rows(
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<3x4xi8>, memref<4xf32>, memref<4xi32>)
// CHECK-NOT:     call @mixrt_ukernel_gemm_f32
// CHECK:         call @mixrt_ukernel_conv2d_f32(
// CHECK:         return
mix.network @w8_rows precision(f32) (%x: tensor<33x3xf32>) -> tensor<33x4xf32> {
  %w = mix.weight dense<[[1.0, -2.0, 3.0, 0.5], [0.25, 1.5, -1.0, 2.0], [-0.5, 0.75, 1.25, -3.0]]> : tensor<3x4xf32>
  %y = mix.dense %x, %w precision(weights = int8) : (tensor<33x3xf32>, tensor<3x4xf32>) -> tensor<33x4xf32>
  mix.return %y : tensor<33x4xf32>
}

// conv2d with an f16 weight and 16 output positions: the im2col GEMM
// (patches [1*4*4, 2*3*3], the weight transposed at compile time to
// [18, 4], packed in f16) is a call; the result is made NCHW after. (From
// 64 positions, any weight, mixrt_ukernel_conv2d_f32 instead:
// use-microkernels-conv.mlir.)
// CHECK-LABEL: func.func @mixc_net_conv_small(
// CHECK:         linalg.generic
// CHECK:         call @mixrt_ukernel_gemm_f32(
// CHECK:         linalg.generic
// CHECK:         return
mix.network @conv_small precision(f32) (%x: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = mix.weight dense<0.5> : tensor<4x2x3x3xf32>
  %y = mix.conv2d %x, %w precision(weights = f16) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  mix.return %y : tensor<1x4x4x4xf32>
}

// Larger convolutions (of fewer than 64 output positions: more take
// mixrt_ukernel_conv2d_f32, use-microkernels-conv.mlir) run band by band:
// the patches of one 7 x 7 image at K = 512 * 9 (903 KiB) do not fit in
// 512 KiB, so each image is split into bands of output rows dividing OH --
// here 7 (prime) bands of one row, 7 x 4608 floats -- copied into one
// scratch buffer, and each band's GEMM writes its rows of the [98, 8] sums
// (no copy after: cse and canonicalize remove the tile's copy into itself);
// the epilogue reads them transposed.
// CHECK-LABEL: func.func @mixc_net_conv_large(
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK:           scf.for %{{.*}} = %c0 to %c7 step %c1 {
// CHECK:             memref.collapse_shape {{.*}} into memref<7x4608xf32>
// CHECK:             call @mixrt_ukernel_gemm_f32(%c7_i64, %c8_i64, %c4608_i64,
// CHECK-NOT:         memref.copy
// CHECK:           }
// CHECK:         }
// CHECK:         memref.expand_shape {{.*}} into memref<2x7x7x8xf32>
// CHECK:         linalg.generic
// CHECK:         return
mix.network @conv_large precision(f32) (%x: tensor<2x512x7x7xf32>) -> tensor<2x8x7x7xf32> {
  %w = mix.weight dense<0.5> : tensor<8x512x3x3xf32>
  %y = mix.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x512x7x7xf32>, tensor<8x512x3x3xf32>) -> tensor<2x8x7x7xf32>
  mix.return %y : tensor<2x8x7x7xf32>
}

// qconv2d of one group: the loop over the unpadded input and the rescale
// after it are one call of mixrt_ukernel_conv2d_s8_rescale (N, C, H, W,
// input, its zero point loaded, F, KH, KW, weight, the weight zero points
// per filter with MIXRT_UKERNEL_A_PER_ROW = 2, strides, dilations,
// padding, OH, OW, the i32 NCHW sums, the input scale loaded, the weight
// scales, no bias, no output quantization (scale 0, zero point 0, qmin 0),
// the f32 output); when it returns other than -1 (a rescaled value that
// is not finite: checks on), the loops behind it run as before: the call
// of mixrt_ukernel_conv2d_s8s8s32 into the sums, then the rescale reading
// them in order (identity maps). No patches, no loop.
// CHECK-LABEL: func.func @mixc_net_qconv(
// CHECK-NOT:     scf.for
// CHECK:         call @mixrt_ukernel_quantize_f32_s8(
// CHECK:         %[[ZA:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[SA:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK:         %[[NOBIAS:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[FIRST:.*]] = call @mixrt_ukernel_conv2d_s8_rescale(%c1_i64{{.*}}, %c1_i64{{.*}}, %c4_i64{{.*}}, %c4_i64{{.*}}, %{{.*}}, %[[ZA]], %c2_i64{{.*}}, %c3_i64{{.*}}, %c3_i64{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c4_i64{{.*}}, %c4_i64{{.*}}, %{{.*}}, %[[SA]], %{{.*}}, %[[NOBIAS]], %cst{{.*}}, %c0_i32{{.*}}, %c0_i32{{.*}}, %{{.*}}, %c2_i32) : ({{.*}}) -> i64
// CHECK:         %[[FAILED:.*]] = arith.cmpi ne, %[[FIRST]], %c-1_i64
// CHECK:         scf.if %[[FAILED]] {
// CHECK:           func.call @mixrt_ukernel_conv2d_s8s8s32(%c1_i64{{.*}}, %c1_i64{{.*}}, %c4_i64{{.*}}, %c4_i64{{.*}}, %{{.*}}, %{{.*}}, %c2_i64{{.*}}, %c3_i64{{.*}}, %c3_i64{{.*}}, %{{.*}}, %{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c4_i64{{.*}}, %c4_i64{{.*}}, %{{.*}}, %c2_i32{{.*}})
// CHECK:           linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #{{.*}}, #{{.*}}, #[[ID]]], {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x2x4x4xi32>,
// CHECK:         return
mix.network @qconv precision(f32) (%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %q, %s, %z = mix.quantize %x asymmetric : tensor<1x1x4x4xf32> -> tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]]], [[[-1, 2, -3], [4, -5, 6], [-7, 8, -9]]]]> : tensor<2x1x3x3xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<[0, 3]> : tensor<2xi32>
  %y = mix.qconv2d %q, %s, %z, %w, %ws, %wz {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x4xf32>
  mix.return %y : tensor<1x2x4x4xf32>
}

// Symmetric weights (zero points all 0) pass none and no flag; stride 2
// and no padding.
// CHECK-LABEL: func.func @mixc_net_qconv_symmetric(
// CHECK:         call @mixrt_ukernel_conv2d_s8_rescale(
// CHECK:         scf.if
// CHECK:         %[[NONE:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @mixrt_ukernel_conv2d_s8s8s32(%c1_i64{{.*}}, %c2_i64{{.*}}, %c5_i64{{.*}}, %c5_i64{{.*}}, %{{.*}}, %{{.*}}, %c3_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %{{.*}}, %[[NONE]], %c2_i64{{.*}}, %c2_i64{{.*}}, %c1_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c3_i64{{.*}}, %c3_i64{{.*}}, %{{.*}}, %c0_i32{{(_[0-9]+)?}})
mix.network @qconv_symmetric precision(f32) (%x: tensor<1x2x5x5xf32>) -> tensor<1x3x3x3xf32> {
  %w = mix.weight dense<0.5> : tensor<3x2x1x1xf32>
  %y = mix.conv2d %x, %w precision(int8) {strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x3x3xf32>
  mix.return %y : tensor<1x3x3x3xf32>
}

// Zero points outside [-128, 127], which the kernel would refuse, keep the
// loops (hand-written qconv2d; mix-quantize never makes them).
// CHECK-LABEL: func.func @mixc_net_qconv_wide_zero_points(
// CHECK-NOT:     call @mixrt_ukernel_conv2d_s8s8s32
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]
// CHECK:         return
mix.network @qconv_wide_zero_points precision(f32) (%q: tensor<1x1x4x4xi8>) -> tensor<1x2x4x4xf32> {
  %s = mix.weight dense<0.5> : tensor<f32>
  %z = mix.weight dense<0> : tensor<i32>
  %w = mix.weight dense<1> : tensor<2x1x3x3xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<[0, 200]> : tensor<2xi32>
  %y = mix.qconv2d %q, %s, %z, %w, %ws, %wz {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x4xf32>
  mix.return %y : tensor<1x2x4x4xf32>
}

// With enabled=false only the marks go.
// OFF-NOT:     call @mixrt_ukernel
// OFF-NOT:     mix.ukernel
// OFF:         memref.global "private" constant @__constant_3x2xf32
// OFF-NOT:     call @mixrt_ukernel
// OFF-NOT:     mix.ukernel
