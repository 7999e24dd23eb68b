// RUN: mix-opt %s --mix-differentiate | FileCheck %s
// An lstm in an f16 block is unrolled in the gradient network: the weights
// transposed for mix.dense, the input GEMM of both steps at once, then per
// step the recurrent GEMM (at the block's f16, inherited), the gates at the
// layer's accumulator precision (f32, derived for f16 layers) and the
// state update at its state precision (f32). No initial state: a constant
// 0 for h and c.

mix.network @seq precision(f32) (%x: tensor<2x1x3xf32>, %t: tensor<1x1x2xf32>) -> tensor<f32> {
  %y = mix.block @enc precision(f16) (%a = %x) : (tensor<2x1x3xf32>) -> tensor<1x1x2xf32> {
    %w = mix.weight external "w" : tensor<1x8x3xf32>
    %r = mix.weight external "r" : tensor<1x8x2xf32>
    %s, %h, %c = mix.lstm %a, %w, %r {state_precision = #mix.precision<f32>} : (tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>) -> (tensor<2x1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>)
    mix.yield %h : tensor<1x1x2xf32>
  }
  %l = mix.mse_loss %y, %t : (tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// CHECK-LABEL: mix.network @seq_grad
// CHECK-SAME:  -> (tensor<f32> {mix.name = "loss"}, tensor<1x8x3xf32> {mix.name = "grad.w"}, tensor<1x8x2xf32> {mix.name = "grad.r"})
// CHECK:       mix.block @enc precision(f16) (%[[X:.*]] = %arg0)
// CHECK:       %[[H0:.*]] = mix.weight dense<0.000000e+00> : tensor<1x2xf32>
// CHECK:       %[[C0:.*]] = mix.weight dense<0.000000e+00> : tensor<1x2xf32>
// CHECK:       %[[WT:.*]] = mix.transpose {{.*}} -> tensor<3x8xf32>
// CHECK:       %[[RT:.*]] = mix.transpose {{.*}} -> tensor<2x8xf32>
// CHECK:       %[[GX:.*]] = mix.dense %[[X]], %[[WT]] : (tensor<2x1x3xf32>, tensor<3x8xf32>) -> tensor<2x1x8xf32>
// Step 0: the recurrent GEMM, the gates i, o, f, c, then c and h.
// CHECK:       mix.slice %[[GX]] {axes = array<i64: 0>, ends = array<i64: 1>, starts = array<i64: 0>
// CHECK:       %[[HR:.*]] = mix.dense %[[H0]], %[[RT]] : (tensor<1x2xf32>, tensor<2x8xf32>) -> tensor<1x8xf32>
// CHECK:       %[[G:.*]] = mix.add %{{.*}}, %[[HR]] precision(f32)
// CHECK:       %[[I:.*]] = mix.sigmoid {{.*}} precision(f32)
// CHECK:       %[[O:.*]] = mix.sigmoid {{.*}} precision(f32)
// CHECK:       %[[F:.*]] = mix.sigmoid {{.*}} precision(f32)
// CHECK:       %[[CC:.*]] = mix.tanh {{.*}} precision(f32)
// CHECK:       %[[FC:.*]] = mix.mul %[[F]], %[[C0]] precision(f32)
// CHECK:       %[[IC:.*]] = mix.mul %[[I]], %[[CC]] precision(f32)
// CHECK:       %[[C1:.*]] = mix.add %[[FC]], %[[IC]] precision(f32)
// CHECK:       %[[T1:.*]] = mix.tanh %[[C1]] precision(f32)
// CHECK:       %[[H1:.*]] = mix.mul %[[O]], %[[T1]] precision(f32)
// Step 1 reads h and c of step 0.
// CHECK:       mix.slice %[[GX]] {axes = array<i64: 0>, ends = array<i64: 2>, starts = array<i64: 1>
// CHECK:       mix.dense %[[H1]], %[[RT]]
// CHECK:       mix.mul %{{.*}}, %[[C1]] precision(f32)
// The weight gradients, summed over the steps, at f32.
// CHECK:       mix.matmul {{.*}} precision(f32) : (tensor<3x2xf32>, tensor<2x8xf32>) -> tensor<3x8xf32>
// CHECK:       mix.return
