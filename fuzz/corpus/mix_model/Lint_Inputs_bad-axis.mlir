// Resolution fails: the block's int8 axis does not fit the relu's input.
mix.network @net precision(f32) (%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = mix.block @q precision(int8<axis = 1>) (%a = %x) : (tensor<8xf32>) -> tensor<8xf32> {
    %r = mix.relu %a : (tensor<8xf32>) -> tensor<8xf32>
    mix.yield %r : tensor<8xf32>
  }
  mix.return %y : tensor<8xf32>
}
