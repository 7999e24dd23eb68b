// An accumulator override below f32 on a loss: sensitive (accumulator),
// accumulator-precision and, as mse_loss is a reduction, a warning.
mix.network @n precision(f32) (%t: tensor<2x4xf32>) {
  // Activations stay f32 (network): no activations finding.
  // expected-error @+4 {{[sensitive-op-precision] 'mix.mse_loss' computes in f16 (accumulator); loss layers must compute in f32 or wider}}
  // expected-error @+3 {{[accumulator-precision] 'mix.mse_loss' accumulates in f16; floating-point accumulation must be f32 or wider}}
  // expected-warning @+2 {{[reduced-precision-reduction] 'mix.mse_loss' sums in f16 (accumulator); long reductions lose precision and overflow in reduced formats}}
  // expected-note @+1 {{f16 set by a property override}}
  %0 = mix.mse_loss %t, %t precision(accumulator = f16) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  mix.return
}
