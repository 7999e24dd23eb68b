// Decoder-only transformer language model with hierarchical precision.
//
//   network @transformer   f32   (embedding and the LM head run at f32)
//   ├─ block @layer0       f16   attention + residual; layer_norm forced to f32
//   │  └─ block @layer0.ffn      two dense layers + gelu, inherit f16
//   ├─ block @layer1       f16   (same structure)
//   └─ block @lm_head            inherits f32: layer_norm, vocabulary projection, loss
//
// Attention scores, their softmax and the weighted sum are computed at the
// accumulator precision (f32 by default for f16 layers): see docs/precision.md.
// Try: mix-lint examples/transformer.mlir --explain

mix.network @transformer precision(f32) (%tokens: tensor<2x8xi32>, %targets: tensor<16xi32>)
    -> (tensor<2x8x50xf32>, tensor<f32>) {
  %table = mix.weight external "embed.table" : tensor<50x32xf32>
  %emb = mix.embedding %tokens, %table : (tensor<2x8xi32>, tensor<50x32xf32>) -> tensor<2x8x32xf32>

  // Transformer block 0: f16 compute; layer norms forced back to f32.
  %h0 = mix.block @layer0 precision(f16) (%x = %emb) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
    %g1 = mix.weight external "layer0.ln1.gamma" : tensor<32xf32>
    %b1 = mix.weight external "layer0.ln1.beta" : tensor<32xf32>
    %n1 = mix.layer_norm %x, %g1, %b1 precision(f32) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %wq = mix.weight external "layer0.attn.wq" : tensor<32x32xf32>
    %wk = mix.weight external "layer0.attn.wk" : tensor<32x32xf32>
    %wv = mix.weight external "layer0.attn.wv" : tensor<32x32xf32>
    %wo = mix.weight external "layer0.attn.wo" : tensor<32x32xf32>
    %a = mix.attention %n1, %wq, %wk, %wv, %wo {causal = true, num_heads = 4 : i64}
        : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %r1 = mix.add %x, %a : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    %g2 = mix.weight external "layer0.ln2.gamma" : tensor<32xf32>
    %b2 = mix.weight external "layer0.ln2.beta" : tensor<32xf32>
    %n2 = mix.layer_norm %r1, %g2, %b2 precision(f32) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    // Feed-forward block: inherits f16 from the transformer block.
    %ff = mix.block @layer0.ffn (%y = %n2) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
      %w1 = mix.weight external "layer0.ffn.w1" : tensor<32x64xf32>
      %c1 = mix.weight external "layer0.ffn.b1" : tensor<64xf32>
      %u = mix.dense %y, %w1, %c1 : (tensor<2x8x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
      %g = mix.gelu %u {approximate = true} : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
      %w2 = mix.weight external "layer0.ffn.w2" : tensor<64x32xf32>
      %c2 = mix.weight external "layer0.ffn.b2" : tensor<32xf32>
      %d = mix.dense %g, %w2, %c2 : (tensor<2x8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
      mix.yield %d : tensor<2x8x32xf32>
    }
    %r2 = mix.add %r1, %ff : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    mix.yield %r2 : tensor<2x8x32xf32>
  }

  // Transformer block 1: f16 compute; layer norms forced back to f32.
  %h1 = mix.block @layer1 precision(f16) (%x = %h0) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
    %g1 = mix.weight external "layer1.ln1.gamma" : tensor<32xf32>
    %b1 = mix.weight external "layer1.ln1.beta" : tensor<32xf32>
    %n1 = mix.layer_norm %x, %g1, %b1 precision(f32) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %wq = mix.weight external "layer1.attn.wq" : tensor<32x32xf32>
    %wk = mix.weight external "layer1.attn.wk" : tensor<32x32xf32>
    %wv = mix.weight external "layer1.attn.wv" : tensor<32x32xf32>
    %wo = mix.weight external "layer1.attn.wo" : tensor<32x32xf32>
    %a = mix.attention %n1, %wq, %wk, %wv, %wo {causal = true, num_heads = 4 : i64}
        : (tensor<2x8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<2x8x32xf32>
    %r1 = mix.add %x, %a : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    %g2 = mix.weight external "layer1.ln2.gamma" : tensor<32xf32>
    %b2 = mix.weight external "layer1.ln2.beta" : tensor<32xf32>
    %n2 = mix.layer_norm %r1, %g2, %b2 precision(f32) : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    // Feed-forward block: inherits f16 from the transformer block.
    %ff = mix.block @layer1.ffn (%y = %n2) : (tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
      %w1 = mix.weight external "layer1.ffn.w1" : tensor<32x64xf32>
      %c1 = mix.weight external "layer1.ffn.b1" : tensor<64xf32>
      %u = mix.dense %y, %w1, %c1 : (tensor<2x8x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
      %g = mix.gelu %u {approximate = true} : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
      %w2 = mix.weight external "layer1.ffn.w2" : tensor<64x32xf32>
      %c2 = mix.weight external "layer1.ffn.b2" : tensor<32xf32>
      %d = mix.dense %g, %w2, %c2 : (tensor<2x8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
      mix.yield %d : tensor<2x8x32xf32>
    }
    %r2 = mix.add %r1, %ff : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    mix.yield %r2 : tensor<2x8x32xf32>
  }

  %probs, %loss = mix.block @lm_head (%x = %h1, %y = %targets)
      : (tensor<2x8x32xf32>, tensor<16xi32>) -> (tensor<2x8x50xf32>, tensor<f32>) {
    %g = mix.weight external "head.ln.gamma" : tensor<32xf32>
    %b = mix.weight external "head.ln.beta" : tensor<32xf32>
    %n = mix.layer_norm %x, %g, %b : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
    %w = mix.weight external "head.proj" : tensor<32x50xf32>
    %logits = mix.dense %n, %w : (tensor<2x8x32xf32>, tensor<32x50xf32>) -> tensor<2x8x50xf32>
    %p = mix.softmax %logits : (tensor<2x8x50xf32>) -> tensor<2x8x50xf32>
    %flat = mix.reshape %logits : (tensor<2x8x50xf32>) -> tensor<16x50xf32>
    %l = mix.cross_entropy_loss %flat, %y : (tensor<16x50xf32>, tensor<16xi32>) -> tensor<f32>
    mix.yield %p, %l : tensor<2x8x50xf32>, tensor<f32>
  }
  mix.return %probs, %loss : tensor<2x8x50xf32>, tensor<f32>
}
