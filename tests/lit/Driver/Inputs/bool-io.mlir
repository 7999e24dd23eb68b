// Masks in and out of a compiled network (Driver/bool-io.test).
mix.network @masks precision(f32) (%a: tensor<2x3xf32>, %m: tensor<2x3xi1>) -> (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi1>) {
  %zero = mix.weight dense<0.0> : tensor<f32>
  %lt = mix.compare %a, %zero {predicate = "lt"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %x = mix.logical %lt, %m {kind = "xor"} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %na = mix.neg %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = mix.where %m, %a, %na : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = mix.logical %m {kind = "not"} : (tensor<2x3xi1>) -> tensor<2x3xi1>
  mix.return %x, %y, %n : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi1>
}
