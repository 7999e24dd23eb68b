// RUN: mix-opt %s --mix-lower-to-llvm="stop-after=linalg fold-batch-norm=false" | mix-opt --mix-fuse-elementwise | FileCheck %s

// A convolution's epilogue (its sums read transposed, + bias), the batch
// norm's scale and shift and the relu: one loop, the scalar operations in
// the layers' order. (Batch-norm folding is off here: it would fold this
// batch norm into the convolution's weights; see
// tests/lit/Transforms/fold-batch-norm.mlir.)
// CHECK-LABEL: func.func @conv_bn_relu(
// CHECK:         linalg.generic {{.*}}mix.ukernel = "gemm_f32"
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:           arith.addf
// CHECK:           arith.subf
// CHECK:           arith.maximumf
// CHECK-NEXT:      linalg.yield
// CHECK-NOT:     linalg.generic
// CHECK:         return
mix.network @conv_bn_relu precision(f32) (%x: tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = mix.weight dense<0.5> : tensor<4x2x3x3xf32>
  %b = mix.weight dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %y = mix.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %g = mix.weight dense<[1.0, 2.0, 0.5, 1.5]> : tensor<4xf32>
  %be = mix.weight dense<[0.0, 0.1, 0.2, 0.3]> : tensor<4xf32>
  %m = mix.weight dense<[0.5, 0.5, 0.5, 0.5]> : tensor<4xf32>
  %v = mix.weight dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %n = mix.batch_norm %y, %g, %be, %m, %v : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %r = mix.relu %n : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  mix.return %r : tensor<1x4x4x4xf32>
}

// Left alone: the checked cast to f16 (its check), the dense bias marked
// for the microkernel, and the relu whose result two layers read.
// CHECK-LABEL: func.func @kept(
// CHECK:         linalg.generic {{.*}}mix.ukernel = "gemm_f32"
// CHECK:         linalg.generic {{.*}}mix.ukernel_bias
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}} ins(%[[R]] :
// CHECK:           func.call @mixrt_check_fail
// CHECK:         linalg.generic {{.*}} ins(%[[R]], %{{.*}} :
// CHECK:         return
mix.network @kept precision(f32) (%x: tensor<2x3xf32>) -> (tensor<2x2xf16>, tensor<2x2xf32>) {
  %w = mix.weight dense<0.5> : tensor<3x2xf32>
  %b = mix.weight dense<[1.0, -1.0]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %r = mix.relu %y : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %h = mix.cast %r checked : tensor<2x2xf32> to tensor<2x2xf16>
  %a = mix.add %r, %y : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  mix.return %h, %a : tensor<2x2xf16>, tensor<2x2xf32>
}

// A mix.dequantize loop (marked "dequantize" for a GEMM reading it) fuses
// with the elementwise layer after it: one loop, unmarked (a marked loop
// would have to be the dequantize alone: mix-pack-dequantized-weights
// checks its body).
// CHECK-LABEL: func.func @dequantize_relu(
// CHECK:         linalg.generic
// CHECK-NOT:       mix.ukernel
// CHECK:           arith.extsi
// CHECK:           arith.subi
// CHECK:           arith.sitofp
// CHECK:           arith.mulf
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.generic
// CHECK:         return
mix.network @dequantize_relu precision(f32) (%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %q = mix.weight dense<[[1, -2, 3], [4, 5, -6]]> : tensor<2x3xi8>
  %s = mix.weight dense<[0.5, 0.25, 2.0]> : tensor<3xf32>
  %z = mix.weight dense<[0, 1, -1]> : tensor<3xi32>
  %w = mix.dequantize %q, %s, %z axis(1) : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi32>) -> tensor<2x3xf32>
  %r = mix.relu %w : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return %r : tensor<2x3xf32>
}
