// Round trip of the quantized ops of mix-quantize.
// RUN: mix-opt %s | mix-opt | FileCheck %s
// RUN: mix-opt %s --mlir-print-op-generic | mix-opt | FileCheck %s

// CHECK-LABEL: mix.network @ops
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = mix.quantize %arg0 symmetric static(scale = 5.000000e-01, zero_point = 0) checked : tensor<1x4xf32> -> tensor<1x4xi8>, tensor<f32>, tensor<i32>
// CHECK: mix.quantize %arg0 asymmetric : tensor<1x4xf32> -> tensor<1x4xi8>, tensor<f32>, tensor<i32>
// CHECK: mix.qdense {{.*}} {k_chunk = 2 : i64} : (tensor<1x4xi8>, tensor<f32>, tensor<i32>, tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) -> tensor<1x2xf32>
// CHECK: mix.qmatmul {{.*}} : (tensor<1x4xi8>, tensor<f32>, tensor<i32>, tensor<4x2xi8>, tensor<f32>, tensor<i32>) -> tensor<1x2xf32>
// CHECK: mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} axis(1) : (tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
// CHECK: mix.dequantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x2xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<4x2xf32>
// CHECK: mix.qconv2d {{.*}} {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x2x4x4xf32>
mix.network @ops precision(f32) (%x: tensor<1x4xf32>, %img: tensor<1x1x4x4xi8>) -> tensor<1x2xf32> {
  %q, %s, %z = mix.quantize %x symmetric static(scale = 0.5, zero_point = 0) checked : tensor<1x4xf32> -> tensor<1x4xi8>, tensor<f32>, tensor<i32>
  %q2, %s2, %z2 = mix.quantize %x asymmetric : tensor<1x4xf32> -> tensor<1x4xi8>, tensor<f32>, tensor<i32>
  %w = mix.weight dense<1> : tensor<4x2xi8>
  %ws = mix.weight dense<0.25> : tensor<2xf32>
  %wz = mix.weight dense<0> : tensor<2xi32>
  %b = mix.weight dense<1.0> : tensor<2xf32>
  %y = mix.qdense %q, %s, %z, %w, %ws, %wz, %b {k_chunk = 2 : i64} : (tensor<1x4xi8>, tensor<f32>, tensor<i32>, tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) -> tensor<1x2xf32>
  %m = mix.qmatmul %q, %s, %z, %w, %s2, %z2 : (tensor<1x4xi8>, tensor<f32>, tensor<i32>, tensor<4x2xi8>, tensor<f32>, tensor<i32>) -> tensor<1x2xf32>
  %dq = mix.dequantize %w, %ws, %wz axis(1) : (tensor<4x2xi8>, tensor<2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  %one = mix.weight dense<0.5> : tensor<1xf32>
  %zero = mix.weight dense<-3> : tensor<1xi32>
  %dt = mix.dequantize %w, %one, %zero : (tensor<4x2xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<4x2xf32>
  %cw = mix.weight dense<1> : tensor<2x1x3x3xi8>
  %cs = mix.weight dense<0.25> : tensor<1xf32>
  %cz = mix.weight dense<0> : tensor<1xi32>
  %c = mix.qconv2d %img, %s, %z, %cw, %cs, %cz {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i32>, tensor<2x1x3x3xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<1x2x4x4xf32>
  mix.return %y : tensor<1x2xf32>
}

