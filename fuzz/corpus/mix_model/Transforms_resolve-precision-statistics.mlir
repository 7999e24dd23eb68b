// Statistics of mix-resolve-precision: layers resolved and decisions by
// source. Pass statistics only exist in builds with LLVM statistics enabled.

// Six layers, 21 decisions (relu: 3, dense: 4):
//   %0 relu:   act network, acc derived, out network
//   %1 relu:   act block, acc derived, out block
//   %2 dense:  w/act/out block, acc derived
//   %3 dense:  w/act/out layer, acc derived
//   %4 dense:  w/act/acc property, out derived (activations are overridden)
//   %5 relu:   act network, acc derived, out property
mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %0 = mix.relu %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.block @b precision(f16) (%a = %x) : (tensor<2x8xf32>) -> () {
    %v = mix.weight external "v" : tensor<8x4xf32>
    %1 = mix.relu %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %2 = mix.dense %a, %v : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  %3 = mix.dense %x, %w precision(bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %4 = mix.dense %x, %w precision(weights = int8, activations = int8, accumulator = i32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %5 = mix.relu %x precision(output = f16) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.return
}
