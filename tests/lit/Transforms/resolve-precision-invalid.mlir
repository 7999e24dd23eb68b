// Resolution failures of mix-resolve-precision.
// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-resolve-precision
// The pass fails, so mix-opt exits with an error.
// RUN: not mix-opt %s -split-input-file --mlir-print-op-on-diagnostic=false --mix-resolve-precision 2>&1 | FileCheck %s

// An int8 axis inherited from the network that the weight tensor cannot have.
// expected-note @+1 {{precision inherited from network @n}}
mix.network @n precision(int8<axis = 2>) (%x: tensor<1x2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+1 {{'mix.dense' op inherits weights precision int8<symmetric, axis = 2> quantized along axis 2, but its weights tensor has rank 2}}
  %0 = mix.dense %x, %w : (tensor<1x2x8xf32>, tensor<8x4xf32>) -> tensor<1x2x4xf32>
  mix.return
}
// CHECK: resolve-precision-invalid.mlir:11:8: error: 'mix.dense' op inherits weights precision int8<symmetric, axis = 2> quantized along axis 2, but its weights tensor has rank 2
// CHECK: resolve-precision-invalid.mlir:8:1: note: precision inherited from network @n

// -----

// The same through a named block, for the activations.
mix.network @n precision(f32) (%x: tensor<8xf32>) {
  // expected-note @+1 {{precision inherited from block @b}}
  mix.block @b precision(int8<asymmetric, axis = 1>) (%a = %x) : (tensor<8xf32>) -> () {
    // expected-error @+1 {{'mix.relu' op inherits activations precision int8<asymmetric, axis = 1> quantized along axis 1, but its activations tensor has rank 1}}
    %0 = mix.relu %a : (tensor<8xf32>) -> tensor<8xf32>
    mix.yield
  }
  mix.return
}
// CHECK: resolve-precision-invalid.mlir:24:10: error: 'mix.relu' op inherits activations precision int8<asymmetric, axis = 1> quantized along axis 1, but its activations tensor has rank 1
// CHECK: resolve-precision-invalid.mlir:22:3: note: precision inherited from block @b

// -----

// An unnamed block, two levels up; the weights fit, the activations do not.
mix.network @n precision(f32) (%x: tensor<8xf32>) {
  // expected-note @+1 {{precision inherited from block <unnamed>}}
  mix.block precision(int8<axis = 1>) (%a = %x) : (tensor<8xf32>) -> () {
    mix.block @inner (%b = %a) : (tensor<8xf32>) -> () {
      %w = mix.weight external "w" : tensor<8x4xf32>
      // expected-error @+1 {{'mix.dense' op inherits activations precision int8<symmetric, axis = 1> quantized along axis 1, but its activations tensor has rank 1}}
      %0 = mix.dense %b, %w : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
      mix.yield
    }
    mix.yield
  }
  mix.return
}
// CHECK: note: precision inherited from block <unnamed>

// -----

// A per-property override replaces the inherited weights precision, so only
// the activations are checked against the inherited axis (rank 3 fits axis 2).
mix.network @n precision(int8<axis = 2>) (%x: tensor<1x2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %0 = mix.dense %x, %w precision(weights = f16) : (tensor<1x2x8xf32>, tensor<8x4xf32>) -> tensor<1x2x4xf32>
  mix.return
}

// -----

// Layers are not constrained to networks by the op definitions, but they
// cannot be resolved outside one.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mix.relu' op is not inside a 'mix.network', so it has no default precision}}
  %0 = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK: error: 'mix.relu' op is not inside a 'mix.network', so it has no default precision
