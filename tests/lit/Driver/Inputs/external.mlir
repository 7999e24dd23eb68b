// The dense + relu layer of tiny.mlir with its weights in a safetensors file.
mix.network @ext precision(f32) (%image: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = mix.weight external "fc.weight" : tensor<4x3xf32>
  %b = mix.weight external "fc.bias" : tensor<3xf32>
  %d = mix.dense %image, %w, %b : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %out = mix.relu %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return %out : tensor<2x3xf32>
}
