// A model that satisfies the default policy: mix-verify-policy reports
// nothing, succeeds, and leaves the IR unchanged (it adds no `resolved`).

mix.network @clean precision(f32) (%x: tensor<2x8xf32>, %l: tensor<2x4xf32>, %y: tensor<2xi32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %r = mix.block @fast precision(f16) (%a = %x, %b = %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32> {
    %0 = mix.dense %a, %b : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %1 = mix.relu %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %1 : tensor<2x4xf32>
  }
  mix.block @quantized precision(int8<axis = 1>) (%a = %x, %b = %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> () {
    %0 = mix.dense %a, %b : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %1 = mix.matmul %a, %b precision(int8<asymmetric>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    %2 = mix.relu %0 precision(f32) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  %2 = mix.softmax %r : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = mix.cross_entropy_loss %r, %y precision(f64) : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f32>
  %4 = mix.dense %x, %w precision(bf16, weights = int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}
