mix.network @net precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // A property override equal to the default.
  %0 = mix.dense %x, %w precision(accumulator = f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.block @head (%a = %x) : (tensor<2x8xf32>) -> () {
    mix.block @inner precision(bf16) (%b = %a) : (tensor<2x8xf32>) -> () {
      %1 = mix.relu %b : (tensor<2x8xf32>) -> tensor<2x8xf32>
      mix.yield
    }
    mix.yield
  }
  mix.return
}
