// RUN: mix-opt %s | FileCheck %s

// CHECK-LABEL: mix.network @smoke precision(f32)
mix.network @smoke precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: mix.relu %{{.*}} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = mix.relu %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return %y : tensor<2x4xf32>
}
