//===----------------------------------------------------------------------===//
// mix.block and mix.yield
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op precision cannot be i32 (i32 is only an accumulator precision)}}
  mix.block @b precision(i32) (%a = %x) : (tensor<4xf32>) -> () {
    mix.yield
  }
  mix.return
}
