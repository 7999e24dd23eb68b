// RUN: mix-opt %s --mix-differentiate --split-input-file -verify-diagnostics
// Each error of mix-differentiate, at the op it names.

// expected-error @below {{mix-differentiate: no network ends in a loss (mix.mse_loss or mix.cross_entropy_loss)}}
module {
  mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
    mix.return %r : tensor<4xf32>
  }
}

// -----

// Every layer op has a rule; mix.attention_core (what mix-quantize makes of
// an int8 attention) is not a layer and has none.
// expected-note @below {{needed for the gradient of the loss of network @n}}
mix.network @n precision(f32) (%x: tensor<1x2x4xf32>, %t: tensor<1x2x4xf32>) -> tensor<f32> {
  %w = mix.weight external "w" : tensor<4xf32>
  %q = mix.mul %x, %w : (tensor<1x2x4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32>
  // expected-error @below {{mix-differentiate: no gradient rule for 'mix.attention_core'}}
  %c = mix.attention_core %q, %q, %q {num_heads = 2 : i64} : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %l = mix.mse_loss %c, %t : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// -----

// The one-hot of an embedding's gradient compares f32 indices: tables of
// more than 2^24 rows are refused, saying why.
// expected-note @below {{needed for the gradient of the loss of network @n}}
mix.network @n precision(f32) (%ids: tensor<4xi32>, %t: tensor<4x1xf32>) -> tensor<f32> {
  %table = mix.weight external "table" : tensor<16777217x1xf32>
  // expected-error @below {{mix-differentiate: no gradient rule for 'mix.embedding' with respect to operand #1: the table has 16777217 rows, and its one-hot compares indices converted to f32, exact up to 2^24}}
  %e = mix.embedding %ids, %table : (tensor<4xi32>, tensor<16777217x1xf32>) -> tensor<4x1xf32>
  %l = mix.mse_loss %e, %t : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// -----

mix.network @n precision(f32) (%x: tensor<1x3x1x1xf32>, %t: tensor<1x3x1x1xf32>) -> tensor<f32> {
  %s = mix.weight external "bn.scale" : tensor<3xf32>
  %b = mix.weight external "bn.bias" : tensor<3xf32>
  %m = mix.weight external "bn.mean" : tensor<3xf32>
  %v = mix.weight external "bn.var" : tensor<3xf32>
  // expected-error @below {{mix-differentiate: batch_norm normalizes 1 value per channel: training uses the statistics of the batch, which need at least 2 (a batch or an image larger than 1)}}
  %n = mix.batch_norm %x, %s, %b, %m, %v : (tensor<1x3x1x1xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x1x1xf32>
  %l = mix.mse_loss %n, %t : (tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// -----

// expected-error @below {{mix-differentiate: the loss of network @n depends on no floating-point weight}}
mix.network @n precision(f32) (%x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  %l = mix.mse_loss %x, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// -----

// expected-error @below {{mix-differentiate: cannot create @n_grad: the module already has a symbol of that name}}
mix.network @n precision(f32) (%x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  %w = mix.weight external "w" : tensor<4xf32>
  %a = mix.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = mix.mse_loss %a, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
mix.network @n_grad precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  mix.return %x : tensor<4xf32>
}


// -----

// A gather by run-time indices has no gradient rule yet, and says so.
// expected-note @below {{needed for the gradient of the loss of network @n}}
mix.network @n precision(f32) (%x: tensor<2x4xf32>, %ids: tensor<3xi64>, %t: tensor<2x3xf32>) -> tensor<f32> {
  %w = mix.weight external "w" : tensor<4xf32>
  %q = mix.mul %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // expected-error @below {{mix-differentiate: no gradient rule for 'mix.gather' with respect to operand #0: it gathers by indices computed at run time (only constant indices have a gradient so far)}}
  %g = mix.gather %q, %ids {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  %l = mix.mse_loss %g, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}

// -----

// reduce_prod has no gradient rule yet, and says why.
// expected-note @below {{needed for the gradient of the loss of network @n}}
mix.network @n precision(f32) (%x: tensor<2x4xf32>, %t: tensor<2x1xf32>) -> tensor<f32> {
  %w = mix.weight external "w" : tensor<4xf32>
  %q = mix.mul %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // expected-error @below {{mix-differentiate: no gradient rule for 'mix.reduce_prod' with respect to operand #0: the gradient of a product (per element, the product of the others, which y / x is not where x = 0) is not implemented}}
  %p = mix.reduce_prod %q {axes = array<i64: 1>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %l = mix.mse_loss %p, %t : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
