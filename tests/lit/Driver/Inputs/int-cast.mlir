// Integer -> float casts (one RNE rounding of the exact integer) and
// integer comparisons, compiled (tests/lit/Driver/int-cast.test).
mix.network @intcast precision(f32) (%a: tensor<6xi64>, %b: tensor<4xi32>, %c: tensor<4xi8>)
    -> (tensor<6xf32>, tensor<6xbf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf64>, tensor<6xf32>) {
  %a32 = mix.cast %a : tensor<6xi64> to tensor<6xf32>
  %abf = mix.cast %a : tensor<6xi64> to tensor<6xbf16>
  %b16 = mix.cast %b : tensor<4xi32> to tensor<4xf16>
  %cu = mix.cast %c unsigned : tensor<4xi8> to tensor<4xf32>
  %cs = mix.cast %c : tensor<4xi8> to tensor<4xf64>
  // where(a > 0 and a != 16777217, a, -1): i64 comparisons.
  %zero = mix.weight dense<0> : tensor<i64>
  %odd = mix.weight dense<16777217> : tensor<i64>
  %pos = mix.compare %a, %zero {predicate = "gt"} : (tensor<6xi64>, tensor<i64>) -> tensor<6xi1>
  %ne = mix.compare %odd, %a {predicate = "ne"} : (tensor<i64>, tensor<6xi64>) -> tensor<6xi1>
  %both = mix.logical %pos, %ne {kind = "and"} : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
  %minus = mix.weight dense<-1.0> : tensor<f32>
  %sel = mix.where %both, %a32, %minus : (tensor<6xi1>, tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  mix.return %a32, %abf, %b16, %cu, %cs, %sel : tensor<6xf32>, tensor<6xbf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf64>, tensor<6xf32>
}

// A checked i32 -> f16 cast: 65520 and more overflow, reported with the
// cast's location.
mix.network @checked precision(f32) (%b: tensor<4xi32>) -> tensor<4xf16> {
  %h = mix.cast %b checked : tensor<4xi32> to tensor<4xf16>
  mix.return %h : tensor<4xf16>
}

// Ties and negative values: i64 -> bf16 (rounded to odd in f64 first),
// i32 -> bf16 (through the exact f64), i64 -> f16 (through f32).
mix.network @ties precision(f32) (%a: tensor<8xi64>, %b: tensor<8xi32>) -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xf16>) {
  %0 = mix.cast %a : tensor<8xi64> to tensor<8xbf16>
  %1 = mix.cast %b : tensor<8xi32> to tensor<8xbf16>
  %2 = mix.cast %a : tensor<8xi64> to tensor<8xf16>
  mix.return %0, %1, %2 : tensor<8xbf16>, tensor<8xbf16>, tensor<8xf16>
}
