// Rule options: sensitive-op-precision {"minimum": "f64"} and
// reduced-precision-reduction {"precisions": ["bf16"]} (replacing f16),
// raised to error severity.

// expected-note @+2 {{f32 inherited from network @n}}
// expected-note @+1 {{f32 is the default accumulator/output for the layer's precisions, decided here}}
mix.network @n precision(f32) (%t: tensor<2x8xf32>, %img: tensor<1x2x4x4xf32>) {
  %g = mix.weight external "g" : tensor<8xf32>
  // f32 is no longer enough; the derived f32 accumulator is reported too,
  // with its note at the op that decided the activations (the network).
  // expected-error @+2 {{[sensitive-op-precision] 'mix.layer_norm' computes in f32 (activations); normalization layers must compute in f64 or wider}}
  // expected-error @+1 {{[sensitive-op-precision] 'mix.layer_norm' computes in f32 (accumulator); normalization layers must compute in f64 or wider}}
  %0 = mix.layer_norm %t, %g, %g : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %1 = mix.layer_norm %t, %g, %g precision(f64) : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  // bf16 exp is now flagged (as an error); f16 exp no longer is.
  // expected-error @+3 {{[sensitive-op-precision] 'mix.softmax' computes in bf16 (activations); softmax must compute in f64 or wider}}
  // expected-error @+2 {{[reduced-precision-reduction] 'mix.softmax' evaluates exp in bf16 (activations); exp overflows reduced formats quickly}}
  // expected-note @+1 {{bf16 set by the layer's own precision}}
  %2 = mix.softmax %t precision(bf16, accumulator = f64) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // expected-error @+2 {{[sensitive-op-precision] 'mix.softmax' computes in f16 (activations); softmax must compute in f64 or wider}}
  // expected-note @+1 {{f16 set by the layer's own precision}}
  %3 = mix.softmax %t precision(f16, accumulator = f64) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  // A bf16 reduction accumulator is flagged; f16 is not (but is still an
  // accumulator-precision error).
  // expected-error @+3 {{[accumulator-precision] 'mix.global_avg_pool' accumulates in bf16; floating-point accumulation must be f32 or wider}}
  // expected-error @+2 {{[reduced-precision-reduction] 'mix.global_avg_pool' sums in bf16 (accumulator); long reductions lose precision and overflow in reduced formats}}
  // expected-note @+1 {{bf16 set by a property override}}
  %4 = mix.global_avg_pool %img precision(accumulator = bf16) : (tensor<1x2x4x4xf32>) -> tensor<1x2xf32>
  mix.return
}
