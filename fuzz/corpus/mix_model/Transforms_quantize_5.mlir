// int8 attention: one quantization of the input for the q/k/v projections
// (integer GEMMs), the attention core in f32, a dynamic quantization of the
// context for the output projection.
// The four projections share one weight here: it is quantized and stored once.
mix.network @attention precision(f32) (%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %wq = mix.weight dense<0.1> : tensor<8x8xf32>
  %y = mix.attention %x, %wq, %wq, %wq, %wq precision(int8) {num_heads = 2 : i64, causal = true} : (tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  mix.return %y : tensor<1x4x8xf32>
}
