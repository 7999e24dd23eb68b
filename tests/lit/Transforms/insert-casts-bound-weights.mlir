// RUN: mix-opt %s --mix-resolve-precision --mix-insert-casts | FileCheck %s
// RUN: mix-opt %s --mix-lower-to-llvm > /dev/null
// Constant weights are converted at compile time wherever they are bound:
// a weight defined at network level and bound into an f16 block becomes an
// f16 weight inside the block (no mix.cast, nothing converted per call, f16
// bytes in the object), exactly as if it were defined in the block. The
// binding goes away when nothing else uses it.

// CHECK-LABEL: mix.network @bound
// CHECK-NOT:   mix.weight
// CHECK:       mix.block @h precision(f16) (%{{[^ ]*}} = %{{[^ ]*}}) : (tensor<1x2xf32>) -> tensor<1x2xf16> {
// CHECK-NEXT:  %[[W:.*]] = mix.weight dense<{{\[}}[1.000000e+00, -5.000000e-01], [2.500000e-01, 3.332520e-01]]> : tensor<2x2xf16>
// CHECK-NOT:   tensor<2x2xf32> to
// CHECK:       mix.dense %{{.*}}, %[[W]] {{.*}}: (tensor<1x2xf16>, tensor<2x2xf16>) -> tensor<1x2xf16>
mix.network @bound precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 0.333333]]> : tensor<2x2xf32>
  %y = mix.block @h precision(f16) (%a = %x, %k = %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
    %d = mix.dense %a, %k : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    mix.yield %d : tensor<1x2xf32>
  }
  mix.return %y : tensor<1x2xf32>
}

// Through two blocks, and still used at network level: the f32 weight stays
// for the f32 layer, the inner block gets its f16 copy, the middle block's
// binding is dropped.
// CHECK-LABEL: mix.network @nested
// CHECK:       %[[W32:.*]] = mix.weight dense<{{.*}}> : tensor<2x2xf32>
// CHECK:       mix.block @outer (%{{[^ ]*}} = %{{[^ ]*}}) :
// CHECK:       mix.block @inner precision(f16) (%{{[^ ]*}} = %{{[^ ]*}}) :
// CHECK-NEXT:  %[[W16:.*]] = mix.weight dense<{{.*}}> : tensor<2x2xf16>
// CHECK-NOT:   tensor<2x2xf32> to
// CHECK:       mix.dense %{{.*}}, %[[W16]] {{.*}}: (tensor<1x2xf16>, tensor<2x2xf16>)
// CHECK:       mix.dense %{{.*}}, %[[W32]] {{.*}}: (tensor<1x2xf32>, tensor<2x2xf32>)
mix.network @nested precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %y = mix.block @outer (%a = %x, %k = %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
    %z = mix.block @inner precision(f16) (%b = %a, %j = %k) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
      %d = mix.dense %b, %j : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
      mix.yield %d : tensor<1x2xf32>
    }
    mix.yield %z : tensor<1x2xf32>
  }
  %e = mix.dense %y, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %e : tensor<1x2xf32>
}
