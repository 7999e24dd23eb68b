mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{the layer precision must come first in precision(...)}}
  %0 = mix.relu %x precision(output = f32, f16) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
