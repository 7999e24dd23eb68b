// Statistics of mix-resolve-precision: layers resolved and decisions by
// source. Pass statistics only exist in builds with LLVM statistics enabled.
// REQUIRES: pass-statistics
// RUN: mix-opt %s --mix-resolve-precision --mlir-pass-statistics --mlir-pass-statistics-display=list -o /dev/null 2>&1 | FileCheck %s

// Six layers, 21 decisions (relu: 3, dense: 4):
//   %0 relu:   act network, acc derived, out network
//   %1 relu:   act block, acc derived, out block
//   %2 dense:  w/act/out block, acc derived
//   %3 dense:  w/act/out layer, acc derived
//   %4 dense:  w/act/acc property, out derived (activations are overridden)
//   %5 relu:   act network, acc derived, out property
// CHECK-LABEL: {{MixResolvePrecisionPass|mix-resolve-precision}}
// CHECK-DAG: (S) 6 layers{{ +}}- Number of layers resolved
// CHECK-DAG: (S) 3 from-network{{ +}}- Properties inherited from the network default
// CHECK-DAG: (S) 5 from-block{{ +}}- Properties inherited from a block
// CHECK-DAG: (S) 3 from-layer{{ +}}- Properties decided by a layer precision
// CHECK-DAG: (S) 4 from-property{{ +}}- Properties decided by a per-property override
// CHECK-DAG: (S) 6 derived{{ +}}- Accumulator/output precisions derived by default
mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %0 = mix.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.block @b precision(f16) (%a = %x) : (tensor<2x8xf32>) -> () {
    %v = mix.weight external "v" : tensor<8x4xf32>
    %1 = mix.relu %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %2 = mix.dense %a, %v : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  %3 = mix.dense %x, %w precision(bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %4 = mix.dense %x, %w precision(weights = int8, activations = int8, accumulator = i32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %5 = mix.relu %x precision(output = f16) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.return
}
