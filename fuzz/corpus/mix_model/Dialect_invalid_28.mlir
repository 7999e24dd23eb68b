//===----------------------------------------------------------------------===//
// mix.network
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected 'precision(...)': a network must set its default precision}}
mix.network @n (%x: tensor<4xf32>) {
  mix.return
}
