mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{'mix.block' op block name cannot be empty}}
  mix.block @"" (%a = %x) : (tensor<4xf32>) -> () {
    mix.yield
  }
  mix.return
}
