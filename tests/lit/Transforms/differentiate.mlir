// RUN: mix-opt %s --mix-differentiate --split-input-file | FileCheck %s
// RUN: mix-opt %s --mix-differentiate --split-input-file --mix-resolve-precision | FileCheck %s --check-prefix=RESOLVED
// The gradient network: the forward flat, then the backward of each layer,
// both in blocks named and set as the blocks that enclosed the layer. The
// backward of a layer keeps the layer's own precision (the relu below is
// f32 inside an f16 block); weight gradients run at f32; an int8 layer's
// backward runs at f32. A precision is written only where it differs from
// what the blocks give.

// CHECK-LABEL: mix.network @mlp precision(f32)
// CHECK-LABEL: mix.network @mlp_grad precision(f32)
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[L:.*]]: tensor<4xi32>, %[[S:.*]]: tensor<f32> {mix.name = "loss_scale"})
// CHECK-SAME: -> (tensor<f32> {mix.name = "loss"}, tensor<3x5xf32> {mix.name = "grad.fc1.weight"}, tensor<5xf32> {mix.name = "grad.fc1.bias"}, tensor<5x2xf32> {mix.name = "grad.fc2.weight"})
// The forward, with the values the backward needs yielded out.
// CHECK: %[[H:.*]]:2 = mix.block @hidden precision(f16) (%{{.*}} = %[[X]])
// CHECK: mix.dense
// CHECK: mix.relu %{{.*}} precision(f32)
// CHECK: mix.yield
// CHECK: %[[W2:.*]] = mix.weight external "fc2.weight"
// CHECK: %[[Z:.*]] = mix.dense %[[H]]#1, %[[W2]] precision(int8)
// CHECK: %[[LOSS:.*]] = mix.cross_entropy_loss %[[Z]], %[[L]]
// The cross-entropy backward: (softmax(z) - onehot(labels)) * scale / N.
// CHECK: %[[P:.*]] = mix.softmax %[[Z]] {axis = 1 : i64}
// The one-hot compares the labels, as f32 clamped into [0, C - 1] (as the
// compiled loss reads them), with 0 .. C-1.
// CHECK: %[[LR:.*]] = mix.cast %[[L]] : tensor<4xi32> to tensor<4xf32>
// CHECK: %[[LF:.*]] = mix.clip %[[LR]] {max = 1.000000e+00 : f64, min = 0.000000e+00 : f64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[IOTA:.*]] = mix.weight dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK: %[[LC:.*]] = mix.reshape %[[LF]] : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: %[[HIT:.*]] = mix.compare %[[LC]], %[[IOTA]] {predicate = "eq"}
// CHECK: %[[ONE:.*]] = mix.weight dense<1.000000e+00> : tensor<f32>
// CHECK: %[[ZERO:.*]] = mix.weight dense<0.000000e+00> : tensor<f32>
// CHECK: %[[ONEHOT:.*]] = mix.where %[[HIT]], %[[ONE]], %[[ZERO]]
// CHECK: %[[FOUR:.*]] = mix.weight dense<4.000000e+00> : tensor<f32>
// CHECK: %[[SCALE:.*]] = mix.div %[[S]], %[[FOUR]]
// CHECK: %[[DIFF:.*]] = mix.sub %[[P]], %[[ONEHOT]]
// CHECK: %[[DZ:.*]] = mix.mul %[[DIFF]], %[[SCALE]]
// The int8 dense's backward runs at f32: what the network gives, so no
// precision is written.
// CHECK: %[[W2T:.*]] = mix.transpose %[[W2]] {permutation = array<i64: 1, 0>}
// CHECK: %[[DH:.*]] = mix.matmul %[[DZ]], %[[W2T]] :
// CHECK: %[[HT:.*]] = mix.transpose %[[H]]#1 {permutation = array<i64: 1, 0>}
// CHECK: %[[DW2:.*]] = mix.matmul %[[HT]], %[[DZ]] :
// The backward of @hidden, in a block @hidden: relu at f32 as its forward,
// the dense's weight gradients at f32, nothing else overridden.
// CHECK: %[[DW1:.*]]:2 = mix.block @hidden precision(f16) (%[[A0:.*]] = %[[H]]#0, %[[A1:.*]] = %[[DH]], %[[A2:.*]] = %[[X]])
// CHECK: %[[MASK:.*]] = mix.compare %[[A0]], %{{.*}} precision(f32) {predicate = "gt"}
// CHECK: %[[DD:.*]] = mix.where %[[MASK]], %[[A1]], %{{.*}} precision(f32)
// CHECK: mix.transpose %[[A2]] precision(f32)
// CHECK: mix.matmul %{{.*}}, %[[DD]] precision(f32)
// CHECK: mix.reduce_sum %[[DD]] precision(f32) {axes = array<i64: 0>, keepdims = false}
// CHECK: mix.return %[[LOSS]], %[[DW1]]#0, %[[DW1]]#1, %[[DW2]]

// The backward of the relu resolves to the relu's own f32, not the block's f16.
// RESOLVED-LABEL: mix.network @mlp_grad
// RESOLVED: mix.where {{.*}}activations = f32 from layer
mix.network @mlp precision(f32) (%x: tensor<4x3xf32>, %labels: tensor<4xi32>) -> tensor<f32> {
  %h = mix.block @hidden precision(f16) (%a = %x) : (tensor<4x3xf32>) -> tensor<4x5xf32> {
    %w1 = mix.weight external "fc1.weight" : tensor<3x5xf32>
    %b1 = mix.weight external "fc1.bias" : tensor<5xf32>
    %d = mix.dense %a, %w1, %b1 : (tensor<4x3xf32>, tensor<3x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
    %r = mix.relu %d precision(f32) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    mix.yield %r : tensor<4x5xf32>
  }
  %w2 = mix.weight external "fc2.weight" : tensor<5x2xf32>
  %z = mix.dense %h, %w2 precision(int8) : (tensor<4x5xf32>, tensor<5x2xf32>) -> tensor<4x2xf32>
  %l = mix.cross_entropy_loss %z, %labels : (tensor<4x2xf32>, tensor<4xi32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// -----

// Networks that do not end in a loss are left alone; a weight used twice
// gets one gradient, the sum of both uses, computed at f32.
// CHECK-LABEL: mix.network @features precision(f32)
// CHECK-NOT: @features_grad
// CHECK-LABEL: mix.network @tied_grad precision(f16)
// CHECK: %[[W:.*]] = mix.weight external "w"
// CHECK: %[[Y1:.*]] = mix.mul %{{.*}}, %[[W]]
// CHECK: %[[Y2:.*]] = mix.mul %[[Y1]], %[[W]]
// CHECK: %[[DY2:.*]] = mix.mul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<f32>)
// CHECK: %[[G2:.*]] = mix.mul %[[DY2]], %[[W]] : (tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[G1:.*]] = mix.mul %[[DY2]], %[[Y1]] precision(f32)
// CHECK: %[[G3:.*]] = mix.mul %[[G2]], %{{.*}} precision(f32)
// CHECK: %[[SUM:.*]] = mix.add %[[G1]], %[[G3]] precision(f32)
// CHECK: mix.return %{{.*}}, %[[SUM]] : tensor<f32>, tensor<4xf32>
mix.network @features precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %r : tensor<4xf32>
}
mix.network @tied precision(f16) (%x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  %w = mix.weight external "w" : tensor<4xf32>
  %y1 = mix.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y2 = mix.mul %y1, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = mix.mse_loss %y2, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// -----

// A float cast (an imported model's Cast) is straight through: the adjoint
// of its f16 result, an f32 tensor, passes to its input unchanged.
mix.network @c precision(f32) (%x: tensor<2x3xf32>, %t: tensor<2x3xf16>) -> tensor<f32> {
  %w = mix.weight external "w" : tensor<3xf32>
  %p = mix.mul %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %h = mix.cast %p : tensor<2x3xf32> to tensor<2x3xf16>
  %l = mix.mse_loss %h, %t : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// CHECK-LABEL: mix.network @c_grad
// CHECK:       %[[DH:.*]] = mix.mul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %[[DW:.*]] = mix.mul %[[DH]], %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  mix.reduce_sum %[[DW]] {axes = array<i64: 0>}
