// Networks with a dynamic batch (tests/lit/Driver/dynamic-batch.test).
//
// @exact: every value is exact in f16 and f32 for the test's inputs
// (multiples of 1/4 times powers of two), so the compiled code and the
// f64 reference interpreter print the same numbers. %bias has no batch: all
// samples share it.
mix.network @exact precision(f32) (%x: tensor<?x4xf32>, %bias: tensor<3xf32>) -> tensor<?x3xf32> {
  %w = mix.weight dense<[[0.5, -1.0, 0.25], [1.0, 0.5, -0.5], [-0.25, 1.0, 1.0], [0.125, -0.5, 2.0]]> : tensor<4x3xf32>
  %d = mix.dense %x, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %h = mix.block @half precision(f16) (%a = %d, %b = %bias) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32> {
    %s = mix.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %r = mix.relu %s : (tensor<?x3xf32>) -> tensor<?x3xf32>
    mix.yield %r : tensor<?x3xf32>
  }
  mix.return %h : tensor<?x3xf32>
}

// @q: an int8 dense layer with dynamic activation scales (no calibration):
// each sample is quantized with its own scale, so a batch gives the bits
// of one sample per call.
mix.network @q precision(f32) (%x: tensor<?x2x4xf32>) -> tensor<?x2x3xf32> {
  %w = mix.weight dense<[[0.5, -1.0, 0.25], [1.0, 0.5, -0.5], [-0.25, 1.0, 1.0], [0.125, -0.5, 2.0]]> : tensor<4x3xf32>
  %b = mix.weight dense<[0.5, -1.0, 0.0]> : tensor<3xf32>
  %d = mix.dense %x, %w, %b precision(int8) : (tensor<?x2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<?x2x3xf32>
  %r = mix.relu %d : (tensor<?x2x3xf32>) -> tensor<?x2x3xf32>
  mix.return %r : tensor<?x2x3xf32>
}
