// A small Temporal-Fusion-Transformer-shaped forecaster with int8 GEMMs.
//
//   network @tft               f32   one series: 24 steps of 4 variables in,
//   │                                the 0.1, 0.5, 0.9 quantiles of the next
//   │                                value of variable 0 out
//   ├─ block @vsn              f32   variable selection: softmax weights over
//   │                                the variables, then an embedding dense
//   ├─ block @encoder          int8  LSTM encoder (integer GEMMs, f32 state)
//   ├─ block @attention        int8  self-attention projections; the residual
//   │                                add and layer_norm back in f32
//   ├─ block @grn              int8  gated residual network on the last step:
//   │                                its two dense layers int8; elu, glu, the
//   │                                residual add and layer_norm in f32
//   └─ (network)               f32   dense quantile head
//
// examples/tft/README.md generates the data and the weights, calibrates the
// int8 blocks and measures the int8 build against the f32 reference.
// Try: mix-lint examples/tft_int8.mlir --explain

mix.network @tft precision(f32) (%series: tensor<1x24x4xf32>) -> tensor<1x3xf32> {
  %emb = mix.block @vsn (%x = %series) : (tensor<1x24x4xf32>) -> tensor<24x1x16xf32> {
    %x2 = mix.reshape %x : (tensor<1x24x4xf32>) -> tensor<24x4xf32>
    %ws = mix.weight external "vsn.select.weight" : tensor<4x4xf32>
    %bs = mix.weight external "vsn.select.bias" : tensor<4xf32>
    %logits = mix.dense %x2, %ws, %bs : (tensor<24x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<24x4xf32>
    %weights = mix.softmax %logits {axis = 1 : i64} : (tensor<24x4xf32>) -> tensor<24x4xf32>
    %selected = mix.mul %x2, %weights : (tensor<24x4xf32>, tensor<24x4xf32>) -> tensor<24x4xf32>
    %we = mix.weight external "vsn.embed.weight" : tensor<4x16xf32>
    %be = mix.weight external "vsn.embed.bias" : tensor<16xf32>
    %e = mix.dense %selected, %we, %be : (tensor<24x4xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<24x16xf32>
    %steps = mix.reshape %e : (tensor<24x16xf32>) -> tensor<24x1x16xf32>
    mix.yield %steps : tensor<24x1x16xf32>
  }

  %encoded = mix.block @encoder precision(int8) (%x = %emb) : (tensor<24x1x16xf32>) -> tensor<24x1x1x16xf32> {
    %w = mix.weight external "encoder.lstm.w" : tensor<1x64x16xf32>
    %r = mix.weight external "encoder.lstm.r" : tensor<1x64x16xf32>
    %b = mix.weight external "encoder.lstm.b" : tensor<1x128xf32>
    %y:3 = mix.lstm %x, %w, %r b(%b)
        : (tensor<24x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>)
        -> (tensor<24x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
    mix.yield %y#0 : tensor<24x1x1x16xf32>
  }
  // [S, D, B, H] with one direction and one series is [B, S, H].
  %sequence = mix.reshape %encoded : (tensor<24x1x1x16xf32>) -> tensor<1x24x16xf32>

  %attended = mix.block @attention precision(int8) (%x = %sequence) : (tensor<1x24x16xf32>) -> tensor<1x24x16xf32> {
    %wq = mix.weight external "attention.wq" : tensor<16x16xf32>
    %wk = mix.weight external "attention.wk" : tensor<16x16xf32>
    %wv = mix.weight external "attention.wv" : tensor<16x16xf32>
    %wo = mix.weight external "attention.wo" : tensor<16x16xf32>
    %a = mix.attention %x, %wq, %wk, %wv, %wo {causal = true, num_heads = 2 : i64}
        : (tensor<1x24x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<1x24x16xf32>
    %sum = mix.add %x, %a precision(f32) : (tensor<1x24x16xf32>, tensor<1x24x16xf32>) -> tensor<1x24x16xf32>
    %g = mix.weight external "attention.norm.gamma" : tensor<16xf32>
    %be = mix.weight external "attention.norm.beta" : tensor<16xf32>
    %n = mix.layer_norm %sum, %g, %be precision(f32) : (tensor<1x24x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x24x16xf32>
    mix.yield %n : tensor<1x24x16xf32>
  }

  %context = mix.block @grn precision(int8) (%x = %attended) : (tensor<1x24x16xf32>) -> tensor<1x16xf32> {
    %last3 = mix.slice %x precision(f32) {axes = array<i64: 1>, starts = array<i64: 23>, ends = array<i64: 24>, steps = array<i64: 1>} : (tensor<1x24x16xf32>) -> tensor<1x1x16xf32>
    %last = mix.reshape %last3 precision(f32) : (tensor<1x1x16xf32>) -> tensor<1x16xf32>
    %w1 = mix.weight external "grn.fc1.weight" : tensor<16x16xf32>
    %b1 = mix.weight external "grn.fc1.bias" : tensor<16xf32>
    %h1 = mix.dense %last, %w1, %b1 : (tensor<1x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
    %a1 = mix.elu %h1 precision(f32) : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %w2 = mix.weight external "grn.fc2.weight" : tensor<16x32xf32>
    %b2 = mix.weight external "grn.fc2.bias" : tensor<32xf32>
    %h2 = mix.dense %a1, %w2, %b2 : (tensor<1x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<1x32xf32>
    %gated = mix.glu %h2 precision(f32) : (tensor<1x32xf32>) -> tensor<1x16xf32>
    %res = mix.add %last, %gated precision(f32) : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x16xf32>
    %g = mix.weight external "grn.norm.gamma" : tensor<16xf32>
    %be = mix.weight external "grn.norm.beta" : tensor<16xf32>
    %n = mix.layer_norm %res, %g, %be precision(f32) : (tensor<1x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
    mix.yield %n : tensor<1x16xf32>
  }

  // head: the quantile head (examples/tft/make_data.py fits it).
  %wh = mix.weight external "head.weight" : tensor<16x3xf32>
  %bh = mix.weight external "head.bias" : tensor<3xf32>
  %quantiles = mix.dense %context, %wh, %bh : (tensor<1x16xf32>, tensor<16x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  mix.return %quantiles : tensor<1x3xf32>
}
