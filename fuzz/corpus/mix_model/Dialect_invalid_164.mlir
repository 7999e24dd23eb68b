// A weight too large to hold is rejected before anything materializes it.
mix.network @huge_splat precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.weight' op weight of type 'tensor<4x4000000000000xf32>' needs 64000000000000 bytes; a weight holds at most 17179869184 bytes}}
  %w = mix.weight dense<1.0> : tensor<4x4000000000000xf32>
  mix.return %x : tensor<1x4xf32>
}
