// Every layer whose lowering calls a math function, in f32 and in f64: the
// undefined symbols of a freestanding object (Driver/freestanding.test) are
// the libm functions docs/mixc.md lists.
mix.network @math32 precision(f32) (%x: tensor<2x4xf32>, %labels: tensor<2xi32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) {
  %g = mix.weight dense<1.0> : tensor<4xf32>
  %b = mix.weight dense<0.0> : tensor<4xf32>
  %n = mix.layer_norm %x, %g, %b : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %e = mix.gelu %n : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %t = mix.gelu %n {approximate = true} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = mix.softmax %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %l = mix.cross_entropy_loss %x, %labels : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f32>
  mix.return %e, %t, %s, %l : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>
}

mix.network @math64 precision(f64) (%x: tensor<2x4xf64>, %labels: tensor<2xi32>) -> (tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<f64>) {
  %g = mix.weight dense<1.0> : tensor<4xf64>
  %b = mix.weight dense<0.0> : tensor<4xf64>
  %n = mix.layer_norm %x, %g, %b : (tensor<2x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  %e = mix.gelu %n : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %t = mix.gelu %n {approximate = true} : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %s = mix.softmax %x : (tensor<2x4xf64>) -> tensor<2x4xf64>
  %l = mix.cross_entropy_loss %x, %labels : (tensor<2x4xf64>, tensor<2xi32>) -> tensor<f64>
  mix.return %e, %t, %s, %l : tensor<2x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>, tensor<f64>
}
