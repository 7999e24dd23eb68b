// The default policy on the gating and recurrent layers: glu evaluates exp
// (a warning in f16), and int8 is refused on it (not a GEMM); lstm and gru
// are GEMM layers, int8 is fine on them.
// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null

// expected-note @+1 {{f16 inherited from network @n}}
mix.network @n precision(f16) (%t: tensor<2x4xf32>) {
  // expected-warning @+1 {{[reduced-precision-reduction] 'mix.glu' evaluates exp in f16 (activations); exp overflows reduced formats quickly}}
  %0 = mix.glu %t : (tensor<2x4xf32>) -> tensor<2x2xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%t: tensor<2x4xf32>) {
  // expected-error @+2 {{[int8-non-gemm-layer]}}
  // expected-note @+1 {{int8 set by the layer's own precision}}
  %0 = mix.glu %t precision(int8) : (tensor<2x4xf32>) -> tensor<2x2xf32>
  mix.return
}

// -----

// An f16 lstm keeps its state in f32 and computes its gates at accumulator
// precision (f32): nothing to report.
mix.network @n precision(f16) (%x: tensor<5x2x3xf32>) -> tensor<5x1x2x4xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y#0 : tensor<5x1x2x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x1x2x4xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  // expected-warning @+2 {{[recurrent-state-precision] 'mix.lstm' carries its state in bf16; rounding the state every step accumulates error over the sequence, keep it in f32 or wider}}
  // expected-note @+1 {{bf16 set by the layer's state_precision}}
  %y:3 = mix.lstm %x, %w, %r {state_precision = #mix.precision<bf16>} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y#0 : tensor<5x1x2x4xf32>
}

// -----

// An explicit f32 or f64 state is fine.
mix.network @n precision(f16) (%x: tensor<5x2x3xf32>) -> tensor<5x1x2x4xf32> {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  %y:3 = mix.lstm %x, %w, %r {state_precision = #mix.precision<f64>} : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y#0 : tensor<5x1x2x4xf32>
}

// -----

mix.network @n precision(f32) (%x: tensor<5x2x3xf32>) -> tensor<5x1x2x4xf32> {
  %w = mix.weight external "w" : tensor<1x12x3xf32>
  %r = mix.weight external "r" : tensor<1x12x4xf32>
  // expected-warning @+2 {{[recurrent-state-precision] 'mix.gru' carries its state in f16; rounding the state every step accumulates error over the sequence, keep it in f32 or wider}}
  // expected-note @+1 {{f16 set by the layer's state_precision}}
  %y:2 = mix.gru %x, %w, %r {state_precision = #mix.precision<f16>} : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y#0 : tensor<5x1x2x4xf32>
}

// -----

// int8 lstm and gru: integer GEMMs (mix-quantize), f32 gates and state.
mix.network @n precision(int8) (%x: tensor<5x2x3xf32>) -> (tensor<5x1x2x4xf32>, tensor<5x1x2x4xf32>) {
  %w = mix.weight external "w" : tensor<1x16x3xf32>
  %r = mix.weight external "r" : tensor<1x16x4xf32>
  %y:3 = mix.lstm %x, %w, %r : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %gw = mix.weight external "gw" : tensor<1x12x3xf32>
  %gr = mix.weight external "gr" : tensor<1x12x4xf32>
  %z:2 = mix.gru %x, %gw, %gr : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
  mix.return %y#0, %z#0 : tensor<5x1x2x4xf32>, tensor<5x1x2x4xf32>
}
