// Networks for mix-bench --validate (mix-bench.test). Every value is exact
// in f32, so the compiled f32 networks equal the f64 reference.

// y = [x0, x1, x1 - x0]: a 3-class classifier.
mix.network @cls precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x3xf32> {
  %w = mix.weight dense<[[1.0, 0.0, -1.0], [0.0, 1.0, 1.0]]> : tensor<2x3xf32>
  %y = mix.dense %x, %w : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  mix.return %y : tensor<1x3xf32>
}

// The same classifier in int8: the inputs are quantized (dynamic scales).
mix.network @cls8 precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x3xf32> {
  %w = mix.weight dense<[[1.0, 0.0, -1.0], [0.0, 1.0, 1.0]]> : tensor<2x3xf32>
  %y = mix.dense %x, %w precision(int8) : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  mix.return %y : tensor<1x3xf32>
}

// y = [x0 + x1, x0 + x1]: a regressor with two quantiles.
mix.network @reg precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<2x2xf32>
  %y = mix.dense %x, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// y = x0 + x1: one value per sample.
mix.network @sum precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<1.0> : tensor<2x1xf32>
  %y = mix.dense %x, %w : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  mix.return %y : tensor<1x1xf32>
}

// One computed value returned twice, and a weight returned twice: each
// output has its own buffer (a crash in buffer-results-to-out-params
// before), both written.
mix.network @twice precision(f32) (%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %w = mix.weight dense<[1.0, -2.0]> : tensor<2xf32>
  %r = mix.relu %x : (tensor<1x2xf32>) -> tensor<1x2xf32>
  mix.return %r, %r, %w, %w : tensor<1x2xf32>, tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>
}

// y = r + reverse(r), r = relu(x): the fused loop loads r at other indices
// in its body, so it must not be written over r.
mix.network @reverse precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %r = mix.relu %x : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %s = mix.slice %r {axes = array<i64: 1>, starts = array<i64: 1>, ends = array<i64: -1>, steps = array<i64: -1>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %a = mix.add %r, %s : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %y = mix.dense %a, %w : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// Two results canonicalization makes one value (a flatten that changes
// nothing, a reshape away and back), and a view of it: three outputs, each
// written (mixc crashed with SIGSEGV on it).
mix.network @folded precision(f32) (%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<2xf32>) {
  %r = mix.relu %x : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %f = mix.flatten %r : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %a = mix.reshape %r {shape = array<i64: 2>} : (tensor<1x2xf32>) -> tensor<2xf32>
  %b = mix.reshape %a {shape = array<i64: 1, 2>} : (tensor<2xf32>) -> tensor<1x2xf32>
  mix.return %f, %b, %a : tensor<1x2xf32>, tensor<1x2xf32>, tensor<2xf32>
}

// Rank-0 tensors reshaped and flattened to one element and back (a crash
// with SIGSEGV in the lowering before): s = x0 + x1, then 2 * s, a weight.
mix.network @scalar precision(f32) (%x: tensor<1x2xf32>) -> (tensor<1x1xf32>, tensor<1xf32>, tensor<1xf32>) {
  %s = mix.reduce_sum %x {keepdims = false} : (tensor<1x2xf32>) -> tensor<f32>
  %r = mix.reshape %s {shape = array<i64: 1, 1>} : (tensor<f32>) -> tensor<1x1xf32>
  %b = mix.reshape %r {shape = array<i64>} : (tensor<1x1xf32>) -> tensor<f32>
  %d = mix.add %b, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %f = mix.flatten %d {start_dim = 0 : i64} : (tensor<f32>) -> tensor<1xf32>
  %w = mix.weight dense<3.0> : tensor<f32>
  %v = mix.reshape %w {shape = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  mix.return %r, %f, %v : tensor<1x1xf32>, tensor<1xf32>, tensor<1xf32>
}

// Values the f64 reference computes but f16 cannot: m = 60000 x overflows
// to +-inf where |x| >= 2, m - m is then NaN (the reference: 0); log x is
// NaN or -inf in both where x <= 0, which is agreement, not error.
mix.network @overflow precision(f32) (%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) {
  %w = mix.weight dense<60000.0> : tensor<2xf32>
  %m = mix.mul %x, %w precision(f16) : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %d = mix.sub %m, %m precision(f16) : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  %l = mix.log %x : (tensor<1x2xf32>) -> tensor<1x2xf32>
  mix.return %m, %d, %l : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>
}

// y = [x0, x1 / 3]: x0 is exact in f32, x1 / 3 is not; the SQNR is over
// every value, the exact ones included (mix-bench.test: 157.5 dB).
mix.network @ratio precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %d = mix.weight dense<[1.0, 3.0]> : tensor<2xf32>
  %y = mix.div %x, %d : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
