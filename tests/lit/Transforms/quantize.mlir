// RUN: mix-opt %s -split-input-file --mix-quantize | FileCheck %s
// RUN: mix-opt %s -split-input-file --mix-quantize=weight-granularity=tensor | FileCheck %s --check-prefix=TENSOR
// RUN: mix-opt %s -split-input-file --mix-quantize=checked=false | FileCheck %s --check-prefix=UNCHECKED
// A second run leaves weight-only layers as they are (IR printed after
// mix-quantize compiles again).
// RUN: mix-opt %s -split-input-file --mix-quantize --mix-quantize | FileCheck %s

// Weights: symmetric per output channel (dense axis 1) by default.
//   column 0: max |w| = 1.0 -> scale 1/127, 0.25 * 127 = 31.75 -> 32
//   column 1: max |w| = 2.0 -> scale 2/127, -0.5 / (2/127) = -31.75 -> -32
// Activations: dynamic (no calibration file), checked.
// CHECK-LABEL: mix.network @dense
// CHECK-DAG: %[[W:.*]] = mix.weight dense<{{\[}}[127, -32], [32, 127]]> : tensor<2x2xi8>
// CHECK-DAG: %[[WS:.*]] = mix.weight dense<[0.00787401571, 0.0157480314]> : tensor<2xf32>
// CHECK-DAG: %[[WZ:.*]] = mix.weight dense<0> : tensor<2xi32>
// CHECK: %[[Q:.*]], %[[S:.*]], %[[Z:.*]] = mix.quantize %{{.*}} symmetric checked : tensor<1x2xf32> -> tensor<1x2xi8>, tensor<f32>, tensor<i32>
// CHECK: mix.qdense %[[Q]], %[[S]], %[[Z]], %[[W]], %[[WS]], %[[WZ]], %{{.*}} : (tensor<1x2xi8>, tensor<f32>, tensor<i32>, tensor<2x2xi8>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) -> tensor<1x2xf32>
// CHECK-NOT: mix.dense
// Per tensor: max |w| = 2.0 -> scale 2/127 for every column.
// TENSOR-LABEL: mix.network @dense
// TENSOR: mix.weight dense<{{\[}}[64, -32], [16, 127]]> : tensor<2x2xi8>
// TENSOR: mix.weight dense<0.0157480314> : tensor<1xf32>
// UNCHECKED: mix.quantize %{{.*}} symmetric : tensor<1x2xf32>
mix.network @dense precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %b = mix.weight dense<[0.5, -0.5]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

// Asymmetric weights: per output channel of a conv2d (axis 0).
//   channel 0: [0, 1, 2, 3] -> min' = 0, max' = 3: scale 3/255, zero point
//              round(-128 - 0) = -128; q = round(x * 85) - 128
// CHECK-LABEL: mix.network @conv
// CHECK: mix.weight dense<{{\[\[\[}}[-128, -43], [42, 127]]]]> : tensor<1x1x2x2xi8>
// CHECK: mix.weight dense<0.0117647061> : tensor<1xf32>
// CHECK: mix.weight dense<-128> : tensor<1xi32>
// CHECK: mix.quantize %{{.*}} asymmetric checked
// CHECK: mix.qconv2d {{.*}} {padding = array<i64: 1, 1, 1, 1>}
mix.network @conv precision(f32) (%x: tensor<1x1x4x4xf32>) -> tensor<1x1x5x5xf32> {
  %w = mix.weight dense<[[[[0.0, 1.0], [2.0, 3.0]]]]> : tensor<1x1x2x2xf32>
  %y = mix.conv2d %x, %w precision(int8<asymmetric>) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32>
  mix.return %y : tensor<1x1x5x5xf32>
}

// -----

// matmul quantizes both activations; no weights.
// CHECK-LABEL: mix.network @matmul
// CHECK: %[[A:.*]], %[[AS:.*]], %[[AZ:.*]] = mix.quantize %arg0 symmetric checked
// CHECK: %[[B:.*]], %[[BS:.*]], %[[BZ:.*]] = mix.quantize %arg1 symmetric checked
// CHECK: mix.qmatmul %[[A]], %[[AS]], %[[AZ]], %[[B]], %[[BS]], %[[BZ]]
mix.network @matmul precision(int8) (%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %c = mix.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  mix.return %c : tensor<2x4xf32>
}

// -----

// Float layers are untouched.
// CHECK-LABEL: mix.network @float
// CHECK: mix.dense
// CHECK-NOT: mix.quantize
mix.network @float precision(f16) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<2x2xf32>
  %y = mix.dense %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

// Per-row activations (axis 0 of a [M, K] input): one dynamic scale and zero
// point per row, even with a calibration file.
// CHECK-LABEL: mix.network @per_row
// CHECK: %[[Q:.*]], %[[S:.*]], %[[Z:.*]] = mix.quantize %arg0 symmetric axis(0) checked : tensor<3x2xf32> -> tensor<3x2xi8>, tensor<3xf32>, tensor<3xi32>
// CHECK: mix.qdense %[[Q]], %[[S]], %[[Z]], {{.*}} : (tensor<3x2xi8>, tensor<3xf32>, tensor<3xi32>, tensor<2x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<3x2xf32>
mix.network @per_row precision(f32) (%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %y = mix.dense %x, %w precision(int8, activations = int8<symmetric, axis = 0>) : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  mix.return %y : tensor<3x2xf32>
}

// -----

// int8 attention: one quantization of the input for the q/k/v projections
// (integer GEMMs), the attention core in f32, a dynamic quantization of the
// context for the output projection.
// CHECK-LABEL: mix.network @attention
// The four projections share one weight here: it is quantized and stored once.
// CHECK: mix.weight dense<127> : tensor<8x8xi8>
// CHECK-NOT: tensor<8x8xi8>
// CHECK: %[[X:.*]], %[[XS:.*]], %[[XZ:.*]] = mix.quantize %arg0 symmetric checked : tensor<1x4x8xf32> -> tensor<1x4x8xi8>, tensor<f32>, tensor<i32>
// CHECK: %[[Q:.*]] = mix.qdense %[[X]], %[[XS]], %[[XZ]]
// CHECK: %[[K:.*]] = mix.qdense %[[X]], %[[XS]], %[[XZ]]
// CHECK: %[[V:.*]] = mix.qdense %[[X]], %[[XS]], %[[XZ]]
// CHECK: %[[C:.*]] = mix.attention_core %[[Q]], %[[K]], %[[V]] {causal = true, num_heads = 2 : i64} : (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK: %[[CQ:.*]], %[[CS:.*]], %[[CZ:.*]] = mix.quantize %[[C]] symmetric checked
// CHECK: mix.qdense %[[CQ]], %[[CS]], %[[CZ]]
// CHECK-NOT: mix.attention %
mix.network @attention precision(f32) (%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %wq = mix.weight dense<0.1> : tensor<8x8xf32>
  %y = mix.attention %x, %wq, %wq, %wq, %wq precision(int8) {num_heads = 2 : i64, causal = true} : (tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  mix.return %y : tensor<1x4x8xf32>
}

// -----

// Weight-only int8: a dense in an f16 block and a conv2d in f32 keep their
// float activations; the weight is stored as int8 with its scales and zero
// points (per output channel; per tensor with weight-granularity=tensor) and
// dequantized to f32 before the layer, which computes as before.
// CHECK-LABEL: mix.network @weight_only
// CHECK-DAG: %[[Q:.*]] = mix.weight dense<{{.*}}> : tensor<4x3xi8>
// CHECK-DAG: %[[S:.*]] = mix.weight dense<{{.*}}> : tensor<3xf32>
// CHECK-DAG: %[[Z:.*]] = mix.weight dense<0> : tensor<3xi32>
// CHECK: %[[W:.*]] = mix.dequantize %[[Q]], %[[S]], %[[Z]] axis(1) : (tensor<4x3xi8>, tensor<3xf32>, tensor<3xi32>) -> tensor<4x3xf32>
// CHECK: mix.dense %{{.*}}, %[[W]] precision(weights = int8) {resolved = #mix.resolved<weights = int8 from property, activations = f16 from block @half, accumulator = f32 from derived, output = f16 from block @half>} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-DAG: %[[CQ:.*]] = mix.weight dense<{{.*}}> : tensor<2x1x3x3xi8>
// CHECK-DAG: %[[CZ:.*]] = mix.weight dense<{{.*}}> : tensor<2xi32>
// CHECK: %[[CW:.*]] = mix.dequantize %[[CQ]], %{{.*}}, %[[CZ]] axis(0) : (tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<2x1x3x3xf32>
// CHECK: mix.conv2d %{{.*}}, %[[CW]] precision(weights = int8<asymmetric>)
// CHECK-NOT: mix.quantize
// The float weights are gone (only the dequantized f32 values remain).
// CHECK-NOT: mix.weight dense<{{.*}}> : tensor<4x3xf32>
// CHECK-NOT: mix.weight dense<{{.*}}> : tensor<2x1x3x3xf32>
// TENSOR-LABEL: mix.network @weight_only
// TENSOR: mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x3xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<4x3xf32>
// TENSOR: mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x1x3x3xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<2x1x3x3xf32>
mix.network @weight_only precision(f32) (%x: tensor<2x4xf32>, %img: tensor<1x1x4x4xf32>) -> (tensor<2x3xf32>, tensor<1x2x4x4xf32>) {
  %h = mix.block @half precision(f16) (%in = %x) : (tensor<2x4xf32>) -> tensor<2x3xf32> {
    %w = mix.weight dense<[[0.5, -1.0, 0.25], [2.0, 0.125, -0.75], [1.5, 1.0, 0.5], [-0.25, 0.5, 1.0]]> : tensor<4x3xf32>
    %y = mix.dense %in, %w precision(weights = int8) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    mix.yield %y : tensor<2x3xf32>
  }
  %cw = mix.weight dense<[[[[0.5, -1.0, 0.25], [2.0, 0.125, -0.75], [1.5, 1.0, 0.5]]], [[[-0.25, 0.5, 1.0], [0.0, 3.0, -2.0], [1.0, 1.0, 1.0]]]]> : tensor<2x1x3x3xf32>
  %c = mix.conv2d %img, %cw precision(weights = int8<asymmetric>) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
  mix.return %h, %c : tensor<2x3xf32>, tensor<1x2x4x4xf32>
}

// -----

// Weight-only int8 attention: its four projection weights ([E, E], input
// by output features) are each quantized per output channel (axis 1) and
// dequantized; the biases stay f32. The shared weight of wk and wv is
// quantized once (one int8 weight) and dequantized for each operand.
// CHECK-LABEL: mix.network @weight_only_attention
// CHECK-NOT: : tensor<4x4xf32>
// CHECK-COUNT-3: mix.weight dense<{{.*}}> : tensor<4x4xi8>
// CHECK-NOT: tensor<4x4xi8>
// CHECK-COUNT-4: mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} axis(1) : (tensor<4x4xi8>, tensor<4xf32>, tensor<4xi32>) -> tensor<4x4xf32>
// CHECK: mix.attention %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} bq(%{{.*}}) precision(weights = int8)
// CHECK-NOT: mix.quantize
// TENSOR-LABEL: mix.network @weight_only_attention
// TENSOR-COUNT-4: mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x4xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<4x4xf32>
mix.network @weight_only_attention precision(f32) (%x: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {
  %wq = mix.weight dense<[[0.5, -1.0, 0.25, 1.0], [2.0, 0.125, -0.75, 0.5], [1.5, 1.0, 0.5, -2.0], [-0.25, 0.5, 1.0, 0.75]]> : tensor<4x4xf32>
  %wk = mix.weight dense<[[1.0, 0.5, -0.25, 0.125], [0.25, -1.0, 2.0, 1.0], [0.5, 0.5, 0.5, 0.5], [-1.0, 1.0, -1.0, 1.0]]> : tensor<4x4xf32>
  %wo = mix.weight dense<[[0.75, 0.25, 1.0, -0.5], [1.0, 2.0, 0.5, 0.25], [-0.5, 0.25, 0.125, 1.5], [0.5, -0.75, 1.0, 2.0]]> : tensor<4x4xf32>
  %bq = mix.weight dense<0.5> : tensor<4xf32>
  %y = mix.attention %x, %wq, %wk, %wk, %wo bq(%bq) precision(weights = int8) {num_heads = 2 : i64} : (tensor<1x3x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<1x3x4xf32>
  mix.return %y : tensor<1x3x4xf32>
}

// -----

// A weight bound into the block from outside: the binding and the float
// weight go once the layer reads the int8 form.
// CHECK-LABEL: mix.network @weight_only_bound
// CHECK-NOT: tensor<4x3xf32>>
// CHECK: mix.block @half precision(f16) (%{{.*}} = %arg0) : (tensor<2x4xf32>) -> tensor<2x3xf32>
// CHECK: mix.weight dense<{{.*}}> : tensor<4x3xi8>
// CHECK: mix.dequantize
mix.network @weight_only_bound precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = mix.weight dense<[[0.5, -1.0, 0.25], [2.0, 0.125, -0.75], [1.5, 1.0, 0.5], [-0.25, 0.5, 1.0]]> : tensor<4x3xf32>
  %h = mix.block @half precision(f16) (%in = %x, %wb = %w) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> {
    %y = mix.dense %in, %wb precision(weights = int8) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    mix.yield %y : tensor<2x3xf32>
  }
  mix.return %h : tensor<2x3xf32>
}

// -----

// Regression: the weight of a weight-only dense is erased after its
// rewrite; an lstm after it quantizes transient weights that may reuse the
// erased op's address, and must not find the dense's int8 form in the
// cache (its input projection would use 0.25's scale, 0.00196850393).
// CHECK-LABEL: mix.network @erased_weight_cache
// CHECK: mix.weight dense<127> : tensor<3x16xi8>
// CHECK: mix.weight dense<0.00196850393> : tensor<16xf32>
// CHECK: mix.dequantize
// CHECK-NOT: dense<0.00196850393>
// CHECK: mix.weight dense<9.842520e-04> : tensor<16xf32>
mix.network @erased_weight_cache precision(f32) (%x: tensor<2x3xf32>, %s: tensor<5x2x3xf32>) -> (tensor<2x16xf32>, tensor<5x1x2x4xf32>) {
  %wd = mix.weight dense<0.25> : tensor<3x16xf32>
  %y = mix.dense %x, %wd precision(weights = int8) : (tensor<2x3xf32>, tensor<3x16xf32>) -> tensor<2x16xf32>
  %w = mix.weight dense<0.125> : tensor<1x16x3xf32>
  %r = mix.weight dense<0.5> : tensor<1x16x4xf32>
  %l:3 = mix.lstm %s, %w, %r precision(int8) : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y, %l#0 : tensor<2x16xf32>, tensor<5x1x2x4xf32>
}

// -----

// Weight-only int8 lstm and gru: w [D, G, I] and r [D, G, H] quantized per
// gate row (axis 1, one scale per row shared by the two directions) and
// dequantized; the biases stay f32, nothing of the input is quantized.
// CHECK-LABEL: mix.network @weight_only_recurrent
// CHECK-NOT: : tensor<2x16x3xf32>
// CHECK: mix.weight dense<2.500000e-01> : tensor<2x32xf32>
// CHECK: %[[W:.*]] = mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} axis(1) : (tensor<2x16x3xi8>, tensor<16xf32>, tensor<16xi32>) -> tensor<2x16x3xf32>
// CHECK: %[[R:.*]] = mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} axis(1) : (tensor<2x16x4xi8>, tensor<16xf32>, tensor<16xi32>) -> tensor<2x16x4xf32>
// CHECK: mix.lstm %arg0, %[[W]], %[[R]] b(%{{.*}}) precision(weights = int8)
// CHECK: %[[GW:.*]] = mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} axis(1) : (tensor<1x12x3xi8>, tensor<12xf32>, tensor<12xi32>) -> tensor<1x12x3xf32>
// CHECK: %[[GR:.*]] = mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} axis(1) : (tensor<1x12x4xi8>, tensor<12xf32>, tensor<12xi32>) -> tensor<1x12x4xf32>
// CHECK: mix.gru %arg0, %[[GW]], %[[GR]] precision(weights = int8)
// CHECK-NOT: mix.quantize
// TENSOR-LABEL: mix.network @weight_only_recurrent
// TENSOR: mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x16x3xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<2x16x3xf32>
mix.network @weight_only_recurrent precision(f32) (%x: tensor<5x2x3xf32>) -> (tensor<5x2x2x4xf32>, tensor<5x1x2x4xf32>) {
  %w = mix.weight dense<0.125> : tensor<2x16x3xf32>
  %r = mix.weight dense<-0.5> : tensor<2x16x4xf32>
  %b = mix.weight dense<0.25> : tensor<2x32xf32>
  %y:3 = mix.lstm %x, %w, %r b(%b) precision(weights = int8) {direction = "bidirectional"} : (tensor<5x2x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>, tensor<2x32xf32>) -> (tensor<5x2x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
  %gw = mix.weight dense<0.75> : tensor<1x12x3xf32>
  %gr = mix.weight dense<0.0625> : tensor<1x12x4xf32>
  %g:2 = mix.gru %x, %gw, %gr precision(weights = int8) : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y#0, %g#0 : tensor<5x2x2x4xf32>, tensor<5x1x2x4xf32>
}
