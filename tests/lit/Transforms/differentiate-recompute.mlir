// RUN: mix-opt %s --mix-differentiate | FileCheck %s
// A block marked mix.recompute: the forward block yields only its result;
// the block's backward computes the dense and the tanh again (with the
// block's name and precision) and its rules read those copies.

mix.network @two precision(f32) (%x: tensor<2x4xf32>, %t: tensor<2x4xf32>) -> tensor<f32> {
  %a = mix.block @a precision(f16) (%i = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> attributes {mix.recompute} {
    %w = mix.weight external "a.w" : tensor<4x4xf32>
    %u = mix.dense %i, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %v = mix.tanh %u : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %v : tensor<2x4xf32>
  }
  %l = mix.mse_loss %a, %t : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// CHECK-LABEL: mix.network @two_grad
// CHECK:       %[[A:.*]] = mix.block @a precision(f16) (%{{.*}} = %arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT:    mix.weight external "a.w"
// CHECK-NEXT:    mix.dense
// CHECK-NEXT:    %[[Y:.*]] = mix.tanh
// CHECK-NEXT:    mix.yield %[[Y]] : tensor<2x4xf32>
// CHECK:       %[[DY:.*]] = mix.mul %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<f32>)
// CHECK:       mix.block @a precision(f16) (%[[X:arg[0-9]+]] = %arg0, %[[G:arg[0-9]+]] = %[[DY]])
// CHECK-NEXT:    %[[W:.*]] = mix.weight external "a.w"
// CHECK-NEXT:    %[[U:.*]] = mix.dense %[[X]], %[[W]]
// CHECK-NEXT:    %[[V:.*]] = mix.tanh %[[U]]
// CHECK:         mix.mul %[[V]], %[[V]]
// CHECK:         mix.transpose %[[X]] precision(f32)
// CHECK:         mix.matmul {{.*}} precision(f32)
// CHECK-NOT:   attributes {mix.recompute}
