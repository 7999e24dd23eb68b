// RUN: mix-opt %s | mix-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: mix-opt %s --mix-specialize-batch | FileCheck %s --check-prefix=ONE
// RUN: mix-opt %s --mix-specialize-batch=batch=4 --mix-specialize-batch | FileCheck %s --check-prefix=FOUR
// RUN: not mix-opt %s --mix-specialize-batch=batch=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not mix-opt %s --convert-mix-to-linalg 2>&1 | FileCheck %s --check-prefix=LOWER
//
// mix-specialize-batch gives the dynamic batch (`?`) of a network a static
// size: the signature, the block arguments of the network and its blocks,
// and every result inside. Static networks are left alone; a second run
// changes nothing.

// ROUNDTRIP-LABEL: mix.network @dyn precision(f32) (%arg0: tensor<?x4xf32>, %arg1: tensor<4xf32>) -> tensor<?x2xf32>
// ROUNDTRIP: mix.block @half precision(f16) (%{{.*}} = %{{.*}}) : (tensor<?x4xf32>) -> tensor<?x4xf32>

// ONE-LABEL: mix.network @dyn precision(f32) (%arg0: tensor<1x4xf32>, %arg1: tensor<4xf32>) -> tensor<1x2xf32>
// ONE:         %[[ADD:.*]] = mix.add %arg0, %arg1 : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// ONE:         %[[H:.*]] = mix.block @half precision(f16) (%[[A:.*]] = %[[ADD]]) : (tensor<1x4xf32>) -> tensor<1x4xf32> {
// ONE:           mix.relu %[[A]] : (tensor<1x4xf32>) -> tensor<1x4xf32>
// ONE:           mix.yield %{{.*}} : tensor<1x4xf32>
// ONE:         mix.reshape %[[H]] : (tensor<1x4xf32>) -> tensor<1x2x2xf32>
// ONE:         mix.dense %{{.*}}, %{{.*}} : (tensor<1x2x2xf32>, tensor<2x1xf32>) -> tensor<1x2x1xf32>
// ONE:         mix.flatten %{{.*}} : (tensor<1x2x1xf32>) -> tensor<1x2xf32>
// ONE:         mix.return %{{.*}} : tensor<1x2xf32>

// FOUR-LABEL: mix.network @dyn precision(f32) (%arg0: tensor<4x4xf32>, %arg1: tensor<4xf32>) -> tensor<4x2xf32>
// FOUR:         mix.return %{{.*}} : tensor<4x2xf32>

// ZERO: error: mix-specialize-batch: batch must be >= 1, got 0

// LOWER: error: 'mix.network' op has a dynamic batch; run mix-specialize-batch before convert-mix-to-linalg

mix.network @dyn precision(f32) (%x: tensor<?x4xf32>, %bias: tensor<4xf32>) -> tensor<?x2xf32> {
  %a = mix.add %x, %bias : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %h = mix.block @half precision(f16) (%in = %a) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
    %r = mix.relu %in : (tensor<?x4xf32>) -> tensor<?x4xf32>
    mix.yield %r : tensor<?x4xf32>
  }
  %s = mix.reshape %h : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  %w = mix.weight dense<0.5> : tensor<2x1xf32>
  %d = mix.dense %s, %w : (tensor<?x2x2xf32>, tensor<2x1xf32>) -> tensor<?x2x1xf32>
  %f = mix.flatten %d : (tensor<?x2x1xf32>) -> tensor<?x2xf32>
  mix.return %f : tensor<?x2xf32>
}

// A static network: unchanged.
// ONE-LABEL: mix.network @static precision(f32) (%arg0: tensor<3x4xf32>) -> tensor<3x4xf32>
// FOUR-LABEL: mix.network @static precision(f32) (%arg0: tensor<3x4xf32>) -> tensor<3x4xf32>
mix.network @static precision(f32) (%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = mix.relu %x : (tensor<3x4xf32>) -> tensor<3x4xf32>
  mix.return %r : tensor<3x4xf32>
}
