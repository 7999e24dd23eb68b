// expected-error @+1 {{'mix.network' op expects 'mix.name' of input #0 to be a non-empty string, got 3 : i64}}
mix.network @name_type precision(f32) (%x: tensor<1x4xf32> {mix.name = 3 : i64}) -> tensor<1x4xf32> {
  mix.return %x : tensor<1x4xf32>
}
