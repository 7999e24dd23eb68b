// mix-verify-policy with the built-in default policy: every rule, its
// message, its severity and the note naming where the precision came from.
// The pass fails on errors and succeeds with warnings only.

//===----------------------------------------------------------------------===//
// sensitive-op-precision (error)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<1x4x2x2xf32>, %t: tensor<2x4xf32>) {
  // One expected-note matches the notes of both findings.
  // expected-note @+1 {{f16 inherited from block @half}}
  mix.block @half precision(f16) (%a = %x, %b = %t) : (tensor<1x4x2x2xf32>, tensor<2x4xf32>) -> () {
    %p = mix.weight external "p" : tensor<4xf32>
    // expected-error @+1 {{[sensitive-op-precision] 'mix.batch_norm' computes in f16 (activations); normalization layers must compute in f32 or wider}}
    %0 = mix.batch_norm %a, %p, %p, %p, %p : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
    // Only activations and accumulator count: f16 weights are fine.
    %1 = mix.batch_norm %a, %p, %p, %p, %p precision(activations = f32) : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
    // expected-error @+1 {{[sensitive-op-precision] 'mix.layer_norm' computes in f16 (activations); normalization layers must compute in f32 or wider}}
    %2 = mix.layer_norm %b, %p, %p : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  mix.return
}
