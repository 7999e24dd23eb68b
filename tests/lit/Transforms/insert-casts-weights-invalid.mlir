// RUN: mix-opt %s -split-input-file --mix-resolve-precision --mix-insert-casts -verify-diagnostics
// RUN: mix-opt %s -split-input-file --mix-resolve-precision --mix-insert-casts=checked=false | FileCheck %s --check-prefix=UNCHECKED
//
// A checked conversion of a constant weight happens at compile time, and
// rejects there, at the weight, a value that overflows the target type and a
// value that is not finite: the same rule as int8 quantization of a weight.
// Unchecked (checked=false), the values convert (inf stays inf, nan nan).

mix.network @overflow precision(f16) (%x: tensor<1x2xf16>) -> tensor<1x2xf16> {
  // expected-error @+1 {{'mix.weight' op value 1.0E+5 at element 3 overflows 'f16' (a checked conversion of this weight)}}
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 1.0e5]]> : tensor<2x2xf32>
  %d = mix.dense %x, %w : (tensor<1x2xf16>, tensor<2x2xf32>) -> tensor<1x2xf16>
  mix.return %d : tensor<1x2xf16>
}

// -----

mix.network @nan precision(f16) (%x: tensor<1x2xf16>) -> tensor<1x2xf16> {
  // expected-error @+1 {{'mix.weight' op value NaN at element 1 is not finite, in 'f16' (a checked conversion of this weight)}}
  %w = mix.weight dense<[[1.0, 0x7FC00000], [0.25, 2.0]]> : tensor<2x2xf32>
  %d = mix.dense %x, %w : (tensor<1x2xf16>, tensor<2x2xf32>) -> tensor<1x2xf16>
  mix.return %d : tensor<1x2xf16>
}

// -----

// Bound into an f16 block: the same error, at the weight.
mix.network @bound_inf precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{'mix.weight' op value +Inf at element 0 is not finite, in 'f16' (a checked conversion of this weight)}}
  %w = mix.weight dense<[[0x7F800000, 1.0], [0.25, 2.0]]> : tensor<2x2xf32>
  %y = mix.block @h precision(f16) (%a = %x, %k = %w) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32> {
    %d = mix.dense %a, %k : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    mix.yield %d : tensor<1x2xf32>
  }
  mix.return %y : tensor<1x2xf32>
}

// UNCHECKED-LABEL: mix.network @overflow
// UNCHECKED:       mix.weight dense<{{\[}}[1.000000e+00, -5.000000e-01], [2.500000e-01, 0x7C00]]> : tensor<2x2xf16>
// UNCHECKED-LABEL: mix.network @nan
// UNCHECKED:       mix.weight dense<{{\[}}[1.000000e+00, 0x7E00], [2.500000e-01, 2.000000e+00]]> : tensor<2x2xf16>
// UNCHECKED-LABEL: mix.network @bound_inf
// UNCHECKED:       mix.weight dense<{{\[}}[0x7C00, 1.000000e+00], [2.500000e-01, 2.000000e+00]]> : tensor<2x2xf16>
