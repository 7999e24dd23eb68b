// RUN: mix-opt %s --mix-lower-to-llvm=stop-after=linalg | FileCheck %s

// Regression: a block that yields its own argument crashed the inlining of
// blocks (the argument no longer exists afterwards; it stands for the
// block's input).
// CHECK-LABEL: func.func @passthrough(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: return %arg0, %{{.*}} : tensor<4xf32>, tensor<4xf32>
mix.network @passthrough precision(f32) (%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a, %r = mix.block @b (%in = %x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %y = mix.relu %in : (tensor<4xf32>) -> tensor<4xf32>
    mix.yield %in, %y : tensor<4xf32>, tensor<4xf32>
  }
  mix.return %a, %r : tensor<4xf32>, tensor<4xf32>
}
