mix.network @n precision(f32) (%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {precision = "f16"} for op mix.relu: Invalid attribute `precision` in property conversion: "f16"}}
  %0 = "mix.relu"(%x) <{precision = "f16"}> : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}
