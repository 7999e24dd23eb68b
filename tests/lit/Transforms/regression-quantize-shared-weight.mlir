// RUN: mix-opt %s --mix-quantize | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm > /dev/null
// Regression test (found by mix_model_fuzzer): one float weight feeding
// several operands of a layer (here the q, k, v and o projections of an
// int8 attention) is erased once after the layer is quantized. mix-quantize
// collected the weight once per operand and erased it again from the
// freed op (a heap use-after-free: ASan's report, or a double free).
// CHECK-LABEL: mix.network @attention
// CHECK-NOT:   tensor<8x8xf32>
// CHECK:       %[[W:.*]] = mix.weight dense<127> : tensor<8x8xi8>
// CHECK-NOT:   tensor<8x8xf32>
// CHECK-COUNT-4: mix.qdense {{.*}}, %[[W]],
// CHECK-NOT:   tensor<8x8xf32>
// CHECK:       mix.return
mix.network @attention precision(f32) (%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %w = mix.weight dense<0.1> : tensor<8x8xf32>
  %y = mix.attention %x, %w, %w, %w, %w precision(int8) {num_heads = 2 : i64, causal = true} : (tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  mix.return %y : tensor<1x4x8xf32>
}
