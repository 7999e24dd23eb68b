// "extends": "none" turns every default rule off; lists are still enforced
// at error severity, and rules named in the policy come back.
mix.network @n precision(f16) (%x: tensor<1x4x2x2xf32>, %t: tensor<2x8xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // Default rules are off: no sensitive-op-precision, no int8-non-gemm-layer.
  %0 = mix.batch_norm %x, %p, %p, %p, %p : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  %1 = mix.softmax %t : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = mix.add %t, %t precision(int8) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  // redundant-override was turned back on (as a warning).
  // expected-warning @+1 {{[redundant-override] 'mix.gelu' sets precision f16, which it already inherits from network @n}}
  %3 = mix.gelu %t precision(f16) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.block @b precision(bf16) (%a = %t) : (tensor<2x8xf32>) -> () {
    // The lists apply at error severity.
    // expected-error @+2 {{[block-precision-list] 'mix.gelu' resolves its activations to bf16, which the policy does not allow in block @b}}
    // expected-note @-3 {{bf16 inherited from block @b}}
    %4 = mix.gelu %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
    mix.yield
  }
  // expected-error @+3 {{[op-precision-list] 'mix.relu' resolves its activations to f16, which the policy does not allow for op kind 'relu'}}
  // expected-error @+2 {{[op-precision-list] 'mix.relu' resolves its output to f16, which the policy does not allow for op kind 'relu'}}
  // expected-note @-18 {{f16 inherited from network @n}}
  %5 = mix.relu %t : (tensor<2x8xf32>) -> tensor<2x8xf32>
  mix.return
}
