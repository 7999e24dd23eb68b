// The default policy on log_softmax, instance_norm and group_norm: they are
// sensitive layers (normalization / softmax: f32 or wider), reductions
// (a reduced accumulator is a warning), and log_softmax evaluates exp (the
// rule names a layer's first range-sensitive function: exp, as for
// softmax, though log_softmax also takes a log).
// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null

// expected-note @+1 {{f16 inherited from network @n}}
mix.network @n precision(f16) (%t: tensor<2x4xf32>) {
  // expected-error @+2 {{[sensitive-op-precision] 'mix.log_softmax' computes in f16 (activations); softmax must compute in f32 or wider}}
  // expected-warning @+1 {{[reduced-precision-reduction] 'mix.log_softmax' evaluates exp in f16 (activations); exp overflows reduced formats quickly}}
  %0 = mix.log_softmax %t : (tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x3x3xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // expected-error @+2 {{[sensitive-op-precision] 'mix.instance_norm' computes in bf16 (activations); normalization layers must compute in f32 or wider}}
  // expected-note @+1 {{bf16 set by the layer's own precision}}
  %0 = mix.instance_norm %x, %p, %p precision(bf16) : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x4x3x3xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // One expected-note matches the notes of the three findings.
  // expected-error @+4 {{[sensitive-op-precision] 'mix.group_norm' computes in f16 (accumulator); normalization layers must compute in f32 or wider}}
  // expected-error @+3 {{[accumulator-precision] 'mix.group_norm' accumulates in f16; floating-point accumulation must be f32 or wider}}
  // expected-warning @+2 {{[reduced-precision-reduction] 'mix.group_norm' sums in f16 (accumulator); long reductions lose precision and overflow in reduced formats}}
  // expected-note @+1 {{f16 set by a property override}}
  %0 = mix.group_norm %x, %p, %p precision(accumulator = f16) {num_groups = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  mix.return
}

// -----

// f32 everywhere: no finding.
mix.network @n precision(f32) (%x: tensor<1x4x3x3xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  %q = mix.weight external "q" : tensor<3x3xf32>
  %0 = mix.group_norm %x, %p, %p {num_groups = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %1 = mix.layer_norm %0, %q, %q {axis = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<1x4x3x3xf32>
  %2 = mix.log_softmax %1 {axis = 1 : i64} : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  mix.return
}
