//===----------------------------------------------------------------------===//
// reduced-precision-reduction (warning)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%img: tensor<1x2x4x4xf32>, %x: tensor<1x2x4xf32>, %x4: tensor<1x4x2xf32>) {
  // expected-error @+3 {{[accumulator-precision] 'mix.global_avg_pool' accumulates in f16}}
  // expected-warning @+2 {{[reduced-precision-reduction] 'mix.global_avg_pool' sums in f16 (accumulator); long reductions lose precision and overflow in reduced formats}}
  // expected-note @+1 {{f16 set by a property override}}
  %0 = mix.global_avg_pool %img precision(accumulator = f16) : (tensor<1x2x4x4xf32>) -> tensor<1x2xf32>
  %q = mix.weight external "q" : tensor<4x4xf32>
  // attention is a reduction too.
  // expected-error @+3 {{[accumulator-precision] 'mix.attention' accumulates in f16}}
  // expected-warning @+2 {{[reduced-precision-reduction] 'mix.attention' sums in f16 (accumulator)}}
  // expected-note @+1 {{f16 set by a property override}}
  %1 = mix.attention %x, %q, %q, %q, %q precision(f16, accumulator = f16) {num_heads = 1 : i64} : (tensor<1x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  // Not a reduction: no warning, only the accumulator error.
  // expected-error @+2 {{[accumulator-precision] 'mix.matmul' accumulates in f16}}
  // expected-note @+1 {{f16 set by a property override}}
  %2 = mix.matmul %x, %x4 precision(accumulator = f16) : (tensor<1x2x4xf32>, tensor<1x4x2xf32>) -> tensor<1x2x2xf32>
  mix.return
}
