// RUN: mix-opt %s --mix-quantize | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm > /dev/null
// A weight defined at network level and bound into an (isolated) block is
// quantized inside the block that uses it: the qdense never uses a value from
// outside its region (it did, and every tool failed on it). The network-level
// user gets its own copy; the float weight and its binding into the block,
// read by neither now, are gone.
// CHECK-LABEL: mix.network @n
// CHECK-NOT:   tensor<2x2xf32>
// CHECK:       %[[OQ:.*]] = mix.weight dense<{{\[}}[127, -32], [32, 127]]> : tensor<2x2xi8>
// CHECK:       mix.block @q (%{{.*}} = %arg0) : (tensor<1x2xf32>) -> tensor<1x2xf32> {
// CHECK-NEXT:  %[[IQ:.*]] = mix.weight dense<{{\[}}[127, -32], [32, 127]]> : tensor<2x2xi8>
// CHECK-NEXT:  %[[IS:.*]] = mix.weight dense<[0.00787401571, 0.0157480314]> : tensor<2xf32>
// CHECK-NEXT:  %[[IZ:.*]] = mix.weight dense<0> : tensor<2xi32>
// CHECK:       mix.qdense %{{.*}}, %{{.*}}, %{{.*}}, %[[IQ]], %[[IS]], %[[IZ]]
// CHECK:       mix.yield
// CHECK:       mix.qdense %{{.*}}, %{{.*}}, %{{.*}}, %[[OQ]],
// CHECK-NOT:   tensor<2x2xf32>
mix.network @n precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %y = mix.block @q (%a = %x, %k = %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
    %d = mix.dense %a, %k precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    mix.yield %d : tensor<1x2xf32>
  }
  %z = mix.dense %y, %w precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %z : tensor<1x2xf32>
}
