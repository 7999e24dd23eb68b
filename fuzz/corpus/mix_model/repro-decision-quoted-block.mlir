mix.network @net precision(f32) (%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = mix.block @"stage 1" precision(f16) (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    %i = mix.block @"2nd" precision(bf16) (%b = %a) : (tensor<2xf32>) -> tensor<2xf32> {
      %q = mix.relu %b : (tensor<2xf32>) -> tensor<2xf32>
      mix.yield %q : tensor<2xf32>
    }
    %r = mix.relu %i : (tensor<2xf32>) -> tensor<2xf32>
    mix.yield %r : tensor<2xf32>
  }
  %z = mix.relu %y : (tensor<2xf32>) -> tensor<2xf32>
  mix.return %z : tensor<2xf32>
}
