// block-precision-list: lists per block name, applied to every layer nested
// (at any depth) in a block of that name.
// RUN: mix-opt %s -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/block-list.json" -o /dev/null
// RUN: not mix-opt %s --mlir-print-op-on-diagnostic=false --mix-verify-policy="policy=%S/Inputs/block-list.json" -o /dev/null

mix.network @n precision(f32) (%x: tensor<2x8xf32>) {
  // expected-note @+2 {{f16 inherited from block @head}}
  // expected-note @+1 {{the policy's list applies to block @head}}
  mix.block @head precision(f16) (%a = %x) : (tensor<2x8xf32>) -> () {
    // The precision comes from @head itself: one note.
    // expected-error @+2 {{[block-precision-list] 'mix.relu' resolves its activations to f16, which the policy does not allow in block @head}}
    // expected-error @+1 {{[block-precision-list] 'mix.relu' resolves its output to f16, which the policy does not allow in block @head}}
    %0 = mix.relu %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %1 = mix.relu %a precision(f32) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // expected-note @+1 {{bf16 inherited from block @inner}}
    mix.block @inner precision(bf16) (%b = %a) : (tensor<2x8xf32>) -> () {
      // The precision comes from a nested block: a second note names @head.
      // expected-error @+2 {{[block-precision-list] 'mix.gelu' resolves its activations to bf16, which the policy does not allow in block @head}}
      // expected-error @+1 {{[block-precision-list] 'mix.gelu' resolves its output to bf16, which the policy does not allow in block @head}}
      %2 = mix.gelu %b : (tensor<2x8xf32>) -> tensor<2x8xf32>
      mix.yield
    }
    mix.yield
  }
  // backbone only checks weights: layers without weights are not checked.
  // expected-note @+1 {{the policy's list applies to block @backbone}}
  mix.block @backbone (%a = %x) : (tensor<2x8xf32>) -> () {
    %w = mix.weight external "w" : tensor<8x4xf32>
    %0 = mix.relu %a precision(f16) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    // expected-error @+2 {{[block-precision-list] 'mix.dense' resolves its weights to int8<asymmetric>, which the policy does not allow in block @backbone}}
    // expected-note @+1 {{int8<asymmetric> set by a property override}}
    %1 = mix.dense %a, %w precision(weights = int8<asymmetric>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  // Blocks with other names, or unnamed, are not checked.
  mix.block @other precision(int8) (%a = %x) : (tensor<2x8xf32>) -> () {
    %w = mix.weight external "w" : tensor<8x4xf32>
    %0 = mix.dense %a, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  mix.return
}
