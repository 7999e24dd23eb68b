mix.network @folds precision(f32) (%h: tensor<4xf16>, %b: tensor<4xbf16>, %s: tensor<4xf32>)
    -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>) {
  // Widening then narrowing back: the identity.
  %0 = mix.cast %h : tensor<4xf16> to tensor<4xf32>
  %1 = mix.cast %0 : tensor<4xf32> to tensor<4xf16>
  // Exact widening then another narrowing: one cast from the source.
  %2 = mix.cast %b : tensor<4xbf16> to tensor<4xf64>
  %3 = mix.cast %2 : tensor<4xf64> to tensor<4xf16>
  // A cast to the same type vanishes.
  %4 = mix.cast %s : tensor<4xf32> to tensor<4xf32>
  // Narrowing then widening is NOT an identity (it rounds): kept.
  %5 = mix.cast %s checked : tensor<4xf32> to tensor<4xf16>
  %6 = mix.cast %5 : tensor<4xf16> to tensor<4xf32>
  mix.return %1, %3, %4, %6 : tensor<4xf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>
}
