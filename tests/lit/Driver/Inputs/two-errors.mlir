// Two policy errors: two softmax layers computing in f16 under the default
// policy. mixc prints both, each with its note.
mix.network @two precision(f32) (%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %y:2 = mix.block @head precision(f16) (%a = %x) : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %s = mix.softmax %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %t = mix.softmax %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %s, %t : tensor<2x4xf32>, tensor<2x4xf32>
  }
  mix.return %y#0, %y#1 : tensor<2x4xf32>, tensor<2x4xf32>
}
