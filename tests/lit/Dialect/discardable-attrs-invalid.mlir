// RUN: mix-opt %s -split-input-file -verify-diagnostics
// The discardable attributes of the mix dialect (mix.k_chunk, mix.name, and
// those the lowering sets: mix.memory_plan, mix.ukernel, mix.ukernel_bias,
// mix.ukernel_window, and mix.recompute on blocks) are
// declared and verified by the dialect; any other mix.* attribute is an error.

mix.network @k_chunk_type precision(f32) (%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{'mix.dense' op expects 'mix.k_chunk' to be an i64 integer, got "2"}}
  %y = mix.dense %x, %w precision(int8) {mix.k_chunk = "2"} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @k_chunk_zero precision(f32) (%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{'mix.dense' op expects 'mix.k_chunk' >= 1, got 0}}
  %y = mix.dense %x, %w precision(int8) {mix.k_chunk = 0 : i64} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}

// -----

mix.network @k_chunk_relu precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.k_chunk': only int8 dense, matmul and conv2d layers split K}}
  %y = mix.relu %x {mix.k_chunk = 2 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %y : tensor<1x4xf32>
}

// -----

mix.network @name_on_op precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.name' as an op attribute: it names a network input or output}}
  %y = mix.relu %x {mix.name = "r"} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %y : tensor<1x4xf32>
}

// -----

mix.network @unknown precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op has unknown attribute 'mix.kchunk'; the mix dialect defines 'mix.k_chunk' (on int8 dense, matmul and conv2d layers), 'mix.name' (on network inputs and outputs), 'mix.working_precision' (on weight inputs of gradient networks), 'mix.recompute' (on blocks) and 'mix.memory_plan' (on lowered network functions)}}
  %y = mix.relu %x {mix.kchunk = 2 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %y : tensor<1x4xf32>
}

// -----

// expected-error @+1 {{'mix.network' op expects 'mix.name' of input #0 to be a non-empty string, got 3 : i64}}
mix.network @name_type precision(f32) (%x: tensor<1x4xf32> {mix.name = 3 : i64}) -> tensor<1x4xf32> {
  mix.return %x : tensor<1x4xf32>
}

// -----

// expected-error @+1 {{'mix.network' op expects 'mix.name' of output #0 to be a non-empty string, got ""}}
mix.network @name_empty precision(f32) (%x: tensor<1x4xf32>) -> (tensor<1x4xf32> {mix.name = ""}) {
  mix.return %x : tensor<1x4xf32>
}

// -----

// expected-error @+1 {{'mix.network' op has unknown attribute 'mix.label' on input #0}}
mix.network @arg_unknown precision(f32) (%x: tensor<1x4xf32> {mix.label = "x"}) -> tensor<1x4xf32> {
  mix.return %x : tensor<1x4xf32>
}

// -----

// mix.memory_plan is set by mix-plan-memory on lowered network functions.
// expected-error @+1 {{'func.func' op expects 'mix.memory_plan' to be {workspace, intermediates, peak} byte counts (non-negative i64), got {workspace = -1 : i64}}}
func.func @plan_bad() attributes {mix.memory_plan = {workspace = -1 : i64}} {
  return
}

// -----

mix.network @plan_on_layer precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.memory_plan': only lowered network functions have it}}
  %r = mix.relu %x {mix.memory_plan = {intermediates = 0 : i64, peak = 0 : i64, workspace = 0 : i64}} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %r : tensor<1x4xf32>
}

// -----

// mix.ukernel and mix.ukernel_bias are set by the lowering on linalg.generic
// GEMMs and bias epilogues, and read by mix-use-microkernels.
#id = affine_map<(d0) -> (d0)>
func.func @ukernel_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.generic' op expects 'mix.ukernel' to be "gemm_f32", "gemm_s8", "range_f32", "quantize_f32", "checked_quantize", "checked_rescale", "checked_narrow", "rescale", "depthwise_f32", "conv2d_f32", "conv2d_s8", "matmul_f32", "dequantize" or "recurrent_gemm_f32", got "gemm_f64"}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) attrs = {mix.ukernel = "gemm_f64"} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @ukernel_bias_value(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.generic' op expects 'mix.ukernel_bias' to be a unit attribute, got 1 : i64}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) attrs = {mix.ukernel_bias = 1} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// mix.ukernel_window: the depthwise loop's strides, dilations and padding.
#id = affine_map<(d0) -> (d0)>
func.func @ukernel_window_size(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.generic' op expects 'mix.ukernel_window' to be 8 i64 (strides and dilations >= 1, then padding >= 0: top, left, bottom, right), got array<i64: 1, 1, 1, 1>}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) attrs = {mix.ukernel_window = array<i64: 1, 1, 1, 1>} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @ukernel_window_values(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.generic' op expects 'mix.ukernel_window' to be 8 i64 (strides and dilations >= 1, then padding >= 0: top, left, bottom, right), got array<i64: 1, 1, 1, 1, 0, -1, 0, 0>}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) attrs = {mix.ukernel_window = array<i64: 1, 1, 1, 1, 0, -1, 0, 0>} {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

mix.network @ukernel_window_on_layer precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.ukernel_window': only the lowering's depthwise linalg.generic has it}}
  %r = mix.relu %x {mix.ukernel_window = array<i64: 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %r : tensor<1x4xf32>
}

// -----

mix.network @ukernel_on_layer precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.ukernel': only the lowering's linalg.generic GEMMs and epilogues have it}}
  %r = mix.relu %x {mix.ukernel = "gemm_f32"} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %r : tensor<1x4xf32>
}

// -----

mix.network @folded_not_a_location precision(f32) (%x: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> {
  %w = mix.weight dense<1.0> : tensor<1x1x1x1xf32>
  // expected-error @+1 {{'mix.conv2d' op expects 'mix.folded_batch_norm' to be a location, got "here"}}
  %c = mix.conv2d %x, %w {mix.folded_batch_norm = "here"} : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  mix.return %c : tensor<1x1x1x1xf32>
}

// -----

mix.network @folded_on_relu precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.folded_batch_norm': only a conv2d has a batch_norm folded into it}}
  %r = mix.relu %x {mix.folded_batch_norm = loc("m.mlir":3:4)} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %r : tensor<1x4xf32>
}

// -----

// expected-error @+1 {{'mix.network' op expects 'mix.working_precision' of input #0 to be #mix.precision<f16> or #mix.precision<bf16>, got #mix.precision<int8>}}
mix.network @bad_working precision(f32) (%w: tensor<2xf32> {mix.working_precision = #mix.precision<int8>}) -> tensor<2xf32> {
  mix.return %w : tensor<2xf32>
}

// -----

mix.network @recompute_on_layer precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.relu' op cannot carry 'mix.recompute': only a mix.block is recomputed for its backward}}
  %y = mix.relu %x {mix.recompute} : (tensor<1x4xf32>) -> tensor<1x4xf32>
  mix.return %y : tensor<1x4xf32>
}

// -----

mix.network @recompute_value precision(f32) (%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'mix.block' op expects 'mix.recompute' to be a unit attribute, got true}}
  %y = mix.block @b (%a = %x) : (tensor<1x4xf32>) -> tensor<1x4xf32> attributes {mix.recompute = true} {
    %r = mix.relu %a : (tensor<1x4xf32>) -> tensor<1x4xf32>
    mix.yield %r : tensor<1x4xf32>
  }
  mix.return %y : tensor<1x4xf32>
}
