mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // Blocks are isolated from above: values enter through their bindings.
  // expected-note @+1 {{required by region isolation constraints}}
  mix.block @b () : () -> () {
    // expected-error @+1 {{using value defined outside the region}}
    %0 = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    mix.yield
  }
  mix.return
}
