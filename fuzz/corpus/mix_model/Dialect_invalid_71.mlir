//===----------------------------------------------------------------------===//
// Operand and attribute constraints (ODS)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4xi32>) {
  // expected-error @+1 {{'mix.relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = mix.relu %x : (tensor<4xi32>) -> tensor<4xi32>
  mix.return
}
