//===----------------------------------------------------------------------===//
// Precision legality shared by all layers (LayerOpInterface)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.relu' op layer precision cannot be i32 (i32 is only an accumulator precision)}}
  %0 = mix.relu %x precision(i32) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
