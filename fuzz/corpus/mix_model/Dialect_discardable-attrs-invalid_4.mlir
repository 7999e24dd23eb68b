mix.network @unknown precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op has unknown attribute 'mix.kchunk'; the mix dialect defines 'mix.k_chunk' (on int8 dense, matmul and conv2d layers) and 'mix.name' (on network inputs and outputs)}}
  %y = mix.relu %x {mix.kchunk = 2 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %y : tensor<1x4xf32>
}
