// RUN: mix-opt %s --mix-differentiate=weights-as-inputs=true | FileCheck %s
// RUN: not mix-opt %s --mix-differentiate=weights-as-inputs=true --mix-differentiate=weights-as-inputs=true 2>&1 | FileCheck %s --check-prefix=TWICE

// With weights-as-inputs: the weights follow loss_scale, named as the
// weights; the conv2d in the bf16 block reads its weight at bf16, so that
// input carries mix.working_precision (the batch_norm, back at f32, reads
// its scale and bias at f32: no attribute). @net_initial_weights returns
// the trained weights, then the running mean and variance.

// CHECK-LABEL: mix.network @net_grad precision(f32)
// CHECK-SAME: %{{.*}}: tensor<f32> {mix.name = "loss_scale"}
// CHECK-SAME: %{{.*}}: tensor<2x2x1x1xf32> {mix.name = "conv.w", mix.working_precision = #mix.precision<bf16>}
// CHECK-SAME: %{{.*}}: tensor<2xf32> {mix.name = "bn.g"}
// CHECK-SAME: %{{.*}}: tensor<2xf32> {mix.name = "bn.b"}
// CHECK-SAME: -> (tensor<f32> {mix.name = "loss"}, tensor<2x2x1x1xf32> {mix.name = "grad.conv.w"}, tensor<2xf32> {mix.name = "grad.bn.g"}, tensor<2xf32> {mix.name = "grad.bn.b"}, tensor<2xf32> {mix.name = "batch_mean.bn.m"}, tensor<2xf32> {mix.name = "batch_var.bn.v"})
// CHECK-NOT: mix.weight external "conv.w"
// CHECK-LABEL: mix.network @net_initial_weights precision(f32) () -> (tensor<2x2x1x1xf32> {mix.name = "conv.w"}, tensor<2xf32> {mix.name = "bn.g"}, tensor<2xf32> {mix.name = "bn.b"}, tensor<2xf32> {mix.name = "bn.m"}, tensor<2xf32> {mix.name = "bn.v"}) {
// CHECK-NEXT:    %[[W:.*]] = mix.weight external "conv.w" : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[G:.*]] = mix.weight external "bn.g" : tensor<2xf32>
// CHECK-NEXT:    %[[B:.*]] = mix.weight external "bn.b" : tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = mix.weight external "bn.m" : tensor<2xf32>
// CHECK-NEXT:    %[[V:.*]] = mix.weight external "bn.v" : tensor<2xf32>
// CHECK-NEXT:    mix.return %[[W]], %[[G]], %[[B]], %[[M]], %[[V]]

// Run twice, the second finds both symbols taken.
// TWICE: error: mix-differentiate: cannot create @net_grad: the module already has a symbol of that name
mix.network @net precision(f32) (%x: tensor<4x2x3x3xf32>, %t: tensor<4x2x3x3xf32>) -> tensor<f32> {
  %y = mix.block @body precision(bf16) (%a = %x) : (tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32> {
    %w = mix.weight external "conv.w" : tensor<2x2x1x1xf32>
    %c = mix.conv2d %a, %w : (tensor<4x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<4x2x3x3xf32>
    %g = mix.weight external "bn.g" : tensor<2xf32>
    %bb = mix.weight external "bn.b" : tensor<2xf32>
    %m = mix.weight external "bn.m" : tensor<2xf32>
    %v = mix.weight external "bn.v" : tensor<2xf32>
    %n = mix.batch_norm %c, %g, %bb, %m, %v precision(f32) : (tensor<4x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2x3x3xf32>
    mix.yield %n : tensor<4x2x3x3xf32>
  }
  %l = mix.mse_loss %y, %t : (tensor<4x2x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
