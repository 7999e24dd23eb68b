// A dynamic batch of 1000-float samples: with --batch 10000000000000000
// the input buffer would need 4e19 bytes, more than 2^64 (mix-bench.test),
// which is an error naming the tensor, not a crash.
mix.network @huge precision(f32) (%x: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %y = mix.relu %x : (tensor<?x1000xf32>) -> tensor<?x1000xf32>
  mix.return %y : tensor<?x1000xf32>
}
