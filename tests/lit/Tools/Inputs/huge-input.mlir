// An input and an output of 4 TB each: mix-bench cannot allocate them
// (mix-bench.test), which is an error naming the tensor, not a crash.
mix.network @huge precision(f32) (%x: tensor<1000000000x1000xf32>) -> tensor<1000000000x1000xf32> {
  %y = mix.relu %x : (tensor<1000000000x1000xf32>) -> tensor<1000000000x1000xf32>
  mix.return %y : tensor<1000000000x1000xf32>
}
