// Networks named like C library functions: malloc and free (the allocating
// entry), logf (log_softmax calls it), memcpy, and expf (softmax called it
// before mix-approximate-math; the app still does).
mix.network @malloc precision(f32) (%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = mix.relu %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = mix.softmax %r : (tensor<2x2xf32>) -> tensor<2x2xf32>
  mix.return %s : tensor<2x2xf32>
}

mix.network @free precision(f32) (%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = mix.relu %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = mix.relu %r : (tensor<2x2xf32>) -> tensor<2x2xf32>
  mix.return %s : tensor<2x2xf32>
}

mix.network @expf precision(f32) (%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %s = mix.softmax %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  mix.return %s : tensor<2x2xf32>
}

mix.network @memcpy precision(f32) (%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = mix.relu %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  mix.return %r : tensor<2x2xf32>
}

mix.network @logf precision(f32) (%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %s = mix.log_softmax %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  mix.return %s : tensor<2x2xf32>
}
