mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op body must end with 'mix.yield'}}
  mix.block (%a = %x) : (tensor<4xf32>) -> () {
    "test.terminator"() : () -> ()
  }
  mix.return
}
