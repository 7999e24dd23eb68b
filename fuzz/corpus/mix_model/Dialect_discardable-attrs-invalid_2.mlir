mix.network @k_chunk_relu precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.k_chunk': only int8 dense, matmul and conv2d layers split K}}
  %y = mix.relu %x {mix.k_chunk = 2 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %y : tensor<1x4xf32>
}
