// RUN: mix-opt %s --mix-differentiate=weights-as-inputs=true -verify-diagnostics

// With weights-as-inputs the pass also adds @n_initial_weights: a symbol of
// that name is refused before anything is built.
// expected-error @below {{mix-differentiate: cannot create @n_initial_weights: the module already has a symbol of that name}}
mix.network @n precision(f32) (%x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  %w = mix.weight external "w" : tensor<4xf32>
  %a = mix.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = mix.mse_loss %a, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
mix.network @n_initial_weights precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  mix.return %x : tensor<4xf32>
}
