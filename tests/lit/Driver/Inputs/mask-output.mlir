mix.network @net precision(f32) (%x: tensor<2xf32>) -> tensor<2xi1> {
  %m = mix.compare %x, %x {predicate = "eq"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  mix.return %m : tensor<2xi1>
}
