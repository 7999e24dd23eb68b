// mix-verify-policy with the built-in default policy: every rule, its
// message, its severity and the note naming where the precision came from.
// RUN: mix-opt %s -split-input-file -verify-diagnostics --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null
// The pass fails on errors and succeeds with warnings only.
// RUN: not mix-opt %s -split-input-file --mlir-print-op-on-diagnostic=false --mix-verify-policy -o /dev/null

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

// -----

mix.network @n precision(f32) (%t: tensor<2x4xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // A layer precision: the note points at the layer itself.
  // expected-error @+2 {{[sensitive-op-precision] 'mix.layer_norm' computes in bf16 (activations); normalization layers must compute in f32 or wider}}
  // expected-note @+1 {{bf16 set by the layer's own precision}}
  %0 = mix.layer_norm %t, %p, %p precision(bf16) : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

// softmax: an f16 network default; exp in f16 is also a reduction warning.
// expected-note @+1 {{f16 inherited from network @n}}
mix.network @n precision(f16) (%t: tensor<2x4xf32>) {
  // expected-error @+2 {{[sensitive-op-precision] 'mix.softmax' computes in f16 (activations); softmax must compute in f32 or wider}}
  // expected-warning @+1 {{[reduced-precision-reduction] 'mix.softmax' evaluates exp in f16 (activations); exp overflows reduced formats quickly}}
  %0 = mix.softmax %t : (tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

// Losses; bf16 is not one of the default reduced precisions (only f16 is),
// so bf16 exp is not a warning.
mix.network @n precision(f32) (%t: tensor<2x4xf32>, %y: tensor<2xi32>) {
  // expected-note @+1 {{bf16 inherited from block <unnamed>}}
  mix.block precision(bf16) (%a = %t, %b = %y) : (tensor<2x4xf32>, tensor<2xi32>) -> () {
    // expected-error @+1 {{[sensitive-op-precision] 'mix.cross_entropy_loss' computes in bf16 (activations); loss layers must compute in f32 or wider}}
    %0 = mix.cross_entropy_loss %a, %b : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f32>
    mix.yield
  }
  mix.return
}

// -----

// An accumulator override below f32 on a loss: sensitive (accumulator),
// accumulator-precision and, as mse_loss is a reduction, a warning.
mix.network @n precision(f32) (%t: tensor<2x4xf32>) {
  // Activations stay f32 (network): no activations finding.
  // expected-error @+4 {{[sensitive-op-precision] 'mix.mse_loss' computes in f16 (accumulator); loss layers must compute in f32 or wider}}
  // expected-error @+3 {{[accumulator-precision] 'mix.mse_loss' accumulates in f16; floating-point accumulation must be f32 or wider}}
  // expected-warning @+2 {{[reduced-precision-reduction] 'mix.mse_loss' sums in f16 (accumulator); long reductions lose precision and overflow in reduced formats}}
  // expected-note @+1 {{f16 set by a property override}}
  %0 = mix.mse_loss %t, %t precision(accumulator = f16) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  mix.return
}

// -----

// int8 on a normalization layer: activations and the derived i32
// accumulator are both below f32, and int8 is not for unweighted ops.
mix.network @n precision(f32) (%x: tensor<1x4x2x2xf32>) {
  %p = mix.weight external "p" : tensor<4xf32>
  // expected-error @+5 {{[sensitive-op-precision] 'mix.batch_norm' computes in int8 (activations); normalization layers must compute in f32 or wider}}
  // expected-error @+4 {{[sensitive-op-precision] 'mix.batch_norm' computes in i32 (accumulator); normalization layers must compute in f32 or wider}}
  // expected-error @+3 {{[int8-non-gemm-layer] 'mix.batch_norm' resolves its weights to int8, but int8 is only for GEMM-like layers (dense, matmul, conv2d, attention, lstm, gru)}}
  // expected-note @+2 {{int8 set by the layer's own precision}}
  // expected-note @+1 {{i32 is the default accumulator/output for the layer's precisions, decided here}}
  %0 = mix.batch_norm %x, %p, %p, %p, %p precision(int8) : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// int8-non-gemm-layer (error)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<2x4xf32>, %ids: tensor<2xi32>, %img: tensor<1x1x4x4xf32>) {
  // expected-error @+2 {{[int8-non-gemm-layer] 'mix.relu' resolves its activations to int8, but int8 is only for GEMM-like layers (dense, matmul, conv2d, attention, lstm, gru)}}
  // expected-note @+1 {{int8 set by the layer's own precision}}
  %0 = mix.relu %x precision(int8) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %e = mix.weight external "e" : tensor<10x4xf32>
  // embedding has weights but is not GEMM-like; one finding per layer.
  // expected-error @+2 {{[int8-non-gemm-layer] 'mix.embedding' resolves its weights to int8, but int8 is only for GEMM-like layers}}
  // expected-note @+1 {{int8 set by a property override}}
  %1 = mix.embedding %ids, %e precision(weights = int8) : (tensor<2xi32>, tensor<10x4xf32>) -> tensor<2x4xf32>
  // An int8 output alone is enough.
  // expected-error @+2 {{[int8-non-gemm-layer] 'mix.max_pool2d' resolves its output to int8, but int8 is only for GEMM-like layers}}
  // expected-note @+1 {{int8 set by a property override}}
  %2 = mix.max_pool2d %img precision(output = int8) {kernel = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-note @+1 {{int8<asymmetric> inherited from block @q}}
  mix.block @q precision(int8<asymmetric>) (%a = %x) : (tensor<2x4xf32>) -> () {
    // GEMM-like layers may be int8.
    %w = mix.weight external "w" : tensor<4x4xf32>
    %0 = mix.dense %a, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %1 = mix.matmul %a, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    // expected-error @+1 {{[int8-non-gemm-layer] 'mix.add' resolves its activations to int8}}
    %2 = mix.add %0, %1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    // expected-error @+1 {{[int8-non-gemm-layer] 'mix.reshape' resolves its activations to int8}}
    %3 = mix.reshape %2 : (tensor<2x4xf32>) -> tensor<8xf32>
    // Overriding to a float is the fix.
    %4 = mix.gelu %2 precision(f32) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield
  }
  mix.return
}

// -----

mix.network @n precision(f32) (%x: tensor<1x2x4xf32>, %img: tensor<1x2x4x4xf32>) {
  %q = mix.weight external "q" : tensor<4x4xf32>
  %k = mix.weight external "k" : tensor<2x2x3x3xf32>
  %0 = mix.attention %x, %q, %q, %q, %q precision(int8) {num_heads = 2 : i64} : (tensor<1x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  %1 = mix.conv2d %img, %k precision(int8<axis = 0>) : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// accumulator-precision (error)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%x: tensor<2x8xf32>, %m: tensor<8x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // expected-error @+2 {{[accumulator-precision] 'mix.dense' multiplies int8 by int8 but accumulates in f32; int8 products must accumulate in exactly i32}}
  // expected-note @+1 {{f32 set by a property override}}
  %0 = mix.dense %x, %w precision(int8, accumulator = f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // expected-error @+2 {{[accumulator-precision] 'mix.matmul' multiplies int8 by int8 but accumulates in f64; int8 products must accumulate in exactly i32}}
  // expected-note @+1 {{f64 set by a property override}}
  %1 = mix.matmul %x, %m precision(int8<asymmetric>, accumulator = f64) : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  // expected-error @+2 {{[accumulator-precision] 'mix.dense' computes in floating point but accumulates in i32; i32 accumulation is only for int8 x int8}}
  // expected-note @+1 {{i32 set by a property override}}
  %2 = mix.dense %x, %w precision(f16, accumulator = i32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // int8 weights with float activations are not int8 x int8.
  // expected-error @+2 {{[accumulator-precision] 'mix.dense' computes in floating point but accumulates in i32}}
  // expected-note @+1 {{i32 set by a property override}}
  %3 = mix.dense %x, %w precision(weights = int8, accumulator = i32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // expected-error @+2 {{[accumulator-precision] 'mix.dense' accumulates in f16; floating-point accumulation must be f32 or wider}}
  // expected-note @+1 {{f16 set by a property override}}
  %4 = mix.dense %x, %w precision(f16, accumulator = f16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // expected-error @+2 {{[accumulator-precision] 'mix.dense' accumulates in bf16; floating-point accumulation must be f32 or wider}}
  // expected-note @+1 {{bf16 set by a property override}}
  %5 = mix.dense %x, %w precision(accumulator = bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // Wider than needed is fine.
  %6 = mix.dense %x, %w precision(f16, accumulator = f64) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// reduced-precision-reduction (warning)
//===----------------------------------------------------------------------===//

mix.network @n precision(f32) (%img: tensor<1x2x4x4xf32>, %x: tensor<1x2x4xf32>, %x4: tensor<1x4x2xf32>) {
  // expected-error @+3 {{[accumulator-precision] 'mix.global_avg_pool' accumulates in f16}}
  // expected-warning @+2 {{[reduced-precision-reduction] 'mix.global_avg_pool' sums in f16 (accumulator); long reductions lose precision and overflow in reduced formats}}
  // expected-note @+1 {{f16 set by a property override}}
  %0 = mix.global_avg_pool %img precision(accumulator = f16) : (tensor<1x2x4x4xf32>) -> tensor<1x2xf32>
  %q = mix.weight external "q" : tensor<4x4xf32>
  // attention is a reduction too.
  // expected-error @+3 {{[accumulator-precision] 'mix.attention' accumulates in f16}}
  // expected-warning @+2 {{[reduced-precision-reduction] 'mix.attention' sums in f16 (accumulator)}}
  // expected-note @+1 {{f16 set by a property override}}
  %1 = mix.attention %x, %q, %q, %q, %q precision(f16, accumulator = f16) {num_heads = 1 : i64} : (tensor<1x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
  // Not a reduction: no warning, only the accumulator error.
  // expected-error @+2 {{[accumulator-precision] 'mix.matmul' accumulates in f16}}
  // expected-note @+1 {{f16 set by a property override}}
  %2 = mix.matmul %x, %x4 precision(accumulator = f16) : (tensor<1x2x4xf32>, tensor<1x4x2xf32>) -> tensor<1x2x2xf32>
  mix.return
}

// -----

//===----------------------------------------------------------------------===//
// redundant-override (warning)
//===----------------------------------------------------------------------===//

// expected-note @+1 {{f32 inherited from network @n}}
mix.network @n precision(f32) (%x: tensor<2x4xf32>) {
  // expected-warning @+1 {{[redundant-override] block @same sets precision f32, which it already inherits from network @n}}
  mix.block @same precision(f32) (%a = %x) : (tensor<2x4xf32>) -> () {
    mix.yield
  }
  // expected-note @+1 {{f16 inherited from block @outer}}
  mix.block @outer precision(f16) (%a = %x) : (tensor<2x4xf32>) -> () {
    // Through a block without precision, unnamed.
    mix.block @plain (%b = %a) : (tensor<2x4xf32>) -> () {
      // expected-warning @+1 {{[redundant-override] block <unnamed> sets precision f16, which it already inherits from block @outer}}
      mix.block precision(f16) (%c = %b) : (tensor<2x4xf32>) -> () {
        mix.yield
      }
      // expected-warning @+1 {{[redundant-override] 'mix.relu' sets precision f16, which it already inherits from block @outer}}
      %0 = mix.relu %b precision(f16) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      mix.yield
    }
    // Different int8 schemes or axes are different precisions.
    mix.block @q precision(int8) (%b = %a) : (tensor<2x4xf32>) -> () {
      mix.block @q2 precision(int8<asymmetric>) (%c = %b) : (tensor<2x4xf32>) -> () {
        mix.yield
      }
      mix.block @q3 precision(int8<axis = 1>) (%c = %b) : (tensor<2x4xf32>) -> () {
        mix.yield
      }
      mix.yield
    }
    mix.yield
  }
  mix.return
}

// -----

mix.network @n precision(f16) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  // Property overrides equal to what the layer resolves to without them.
  // expected-warning @+1 {{[redundant-override] 'mix.dense' overrides its weights to f16, which it would resolve to anyway}}
  %0 = mix.dense %x, %w precision(weights = f16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // expected-warning @+1 {{[redundant-override] 'mix.dense' overrides its activations to f16, which it would resolve to anyway}}
  %1 = mix.dense %x, %w precision(activations = f16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // expected-warning @+1 {{[redundant-override] 'mix.dense' overrides its accumulator to f32, which it would resolve to anyway}}
  %2 = mix.dense %x, %w precision(accumulator = f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // expected-warning @+1 {{[redundant-override] 'mix.dense' overrides its output to f16, which it would resolve to anyway}}
  %3 = mix.dense %x, %w precision(output = f16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // int8 defaults: i32 accumulator, f32 output.
  // expected-warning @+2 {{[redundant-override] 'mix.dense' overrides its accumulator to i32, which it would resolve to anyway}}
  // expected-warning @+1 {{[redundant-override] 'mix.dense' overrides its output to f32, which it would resolve to anyway}}
  %4 = mix.dense %x, %w precision(int8, accumulator = i32, output = f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // A layer precision equal to the weights override: the override is redundant.
  // expected-warning @+1 {{[redundant-override] 'mix.dense' overrides its weights to bf16, which it would resolve to anyway}}
  %5 = mix.dense %x, %w precision(bf16, weights = bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // Not redundant: they change something.
  %6 = mix.dense %x, %w precision(bf16, weights = f16, accumulator = f64, output = f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

// -----

// The elementwise math layers whose function overflows or loses precision
// in f16: exp (also inside sigmoid, silu, elu), log, pow. tanh and sqrt are
// not flagged.
// expected-note @+1 {{f16 inherited from network @n}}
mix.network @n precision(f16) (%t: tensor<4xf32>) {
  // expected-warning @+1 {{[reduced-precision-reduction] 'mix.exp' evaluates exp in f16 (activations); exp overflows reduced formats quickly}}
  %0 = mix.exp %t : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @+1 {{[reduced-precision-reduction] 'mix.sigmoid' evaluates exp in f16 (activations); exp overflows reduced formats quickly}}
  %1 = mix.sigmoid %t : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @+1 {{[reduced-precision-reduction] 'mix.log' evaluates log in f16 (activations); log's results lose relative precision and its small inputs underflow in reduced formats}}
  %2 = mix.log %t : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @+1 {{[reduced-precision-reduction] 'mix.pow' evaluates pow in f16 (activations); pow overflows reduced formats quickly}}
  %3 = mix.pow %t, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = mix.tanh %t : (tensor<4xf32>) -> tensor<4xf32>
  %5 = mix.sqrt %t : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

// int8 is for GEMM-like layers only, math included.
mix.network @n precision(f32) (%t: tensor<4xf32>) {
  // expected-error @+2 {{[int8-non-gemm-layer] 'mix.sigmoid' resolves its activations to int8, but int8 is only for GEMM-like layers (dense, matmul, conv2d, attention, lstm, gru)}}
  // expected-note @+1 {{int8 set by the layer's own precision}}
  %0 = mix.sigmoid %t precision(int8) : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

// -----

// The summing reductions are reductions for the policy; max and min are not.
mix.network @n precision(f32) (%t: tensor<4x8xf32>) {
  // expected-error @+4 {{[accumulator-precision] 'mix.reduce_sum' accumulates in f16; floating-point accumulation must be f32 or wider}}
  // expected-warning @+3 {{[reduced-precision-reduction] 'mix.reduce_sum' sums in f16 (accumulator); long reductions lose precision and overflow in reduced formats}}
  // One expected-note matches the notes of both findings.
  // expected-note @+1 {{f16 set by a property override}}
  %0 = mix.reduce_sum %t precision(accumulator = f16) {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %1 = mix.reduce_max %t precision(f16) {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  mix.return
}
