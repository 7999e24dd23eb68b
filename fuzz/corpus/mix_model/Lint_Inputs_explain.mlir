// Layers with every kind of provenance, for --explain.
mix.network @net precision(f32) (%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %w = mix.weight external "fc.w" : tensor<8x4xf32>
  %y = mix.block @stage1 precision(f16) (%a = %x, %b = %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32> {
    %d = mix.dense %a, %b precision(weights = int8<axis = 1>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %r = mix.block (%c = %d) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
      %g = mix.gelu %c precision(bf16) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      %h = mix.block precision(f32) (%e = %g) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
        %k = mix.relu %e : (tensor<2x4xf32>) -> tensor<2x4xf32>
        mix.yield %k : tensor<2x4xf32>
      }
      mix.yield %h : tensor<2x4xf32>
    }
    mix.yield %r : tensor<2x4xf32>
  }
  %q = mix.dense %x, %w precision(int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %s = mix.add %y, %q : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return %s : tensor<2x4xf32>
}
