// Round trip of every mix op and attribute form: print -> parse -> print in
// the custom form, and through the generic form.

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

module attributes {
  t.f64 = #mix.precision<f64>,
  t.f32 = #mix.precision<f32>,
  t.f16 = #mix.precision<f16>,
  t.bf16 = #mix.precision<bf16>,
  t.acc = #mix.precision<i32>,
  t.i8 = #mix.precision<int8>,
  t.i8_sym = #mix.precision<int8<symmetric>>,
  t.i8_asym = #mix.precision<int8<asymmetric>>,
  t.i8_axis = #mix.precision<int8<axis = 0>>,
  t.i8_sym_axis = #mix.precision<int8<symmetric, axis = 2>>,
  t.i8_asym_axis = #mix.precision<int8<asymmetric, axis = 3>>,
  t.d_block = #mix.decision<f16 from block @stage1>,
  t.d_unnamed = #mix.decision<f16 from block>,
  t.d_network = #mix.decision<f64 from network @net>,
  t.d_derived = #mix.decision<f32 from derived>,
  t.d_property = #mix.decision<bf16 from property>,
  t.d_int8 = #mix.decision<int8<asymmetric, axis = 1> from layer>,
  t.r_full = #mix.resolved<weights = int8<axis = 1> from property, activations = f16 from block @s, accumulator = f32 from derived, output = f16 from block @s>,
  t.r_no_weights = #mix.resolved<activations = f32 from network @n, accumulator = f32 from derived, output = f32 from network @n>,
  t.r_reordered = #mix.resolved<output = bf16 from layer, accumulator = f64 from property, activations = bf16 from layer, weights = bf16 from layer>
} {

//===----------------------------------------------------------------------===//
// Structure: network, block, yield, return
//===----------------------------------------------------------------------===//

// A network with two inputs (one with an argument attribute), two outputs and
// an attribute dictionary.
mix.network @structure precision(f32) (%x: tensor<2x4xf32> {t.name = "x"}, %y: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) attributes {t.tag = 7 : i64} {
  %r:2 = mix.block @pair precision(bf16) (%a = %x, %b = %y) : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %0 = mix.relu %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = mix.relu %b : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  mix.return %r#0, %r#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// Blocks nested three deep: named with precision, unnamed with precision,
// named without precision, unnamed without precision; a block with no inputs
// and no results and empty yield/return; a block attribute dictionary.
mix.network @nested precision(f64) (%x: tensor<4xf32>) {
  mix.block @outer precision(f16) (%a = %x) : (tensor<4xf32>) -> () {
    mix.block precision(bf16) (%b = %a) : (tensor<4xf32>) -> () {
      mix.block @inner (%c = %b) : (tensor<4xf32>) -> () {
        mix.block (%d = %c) : (tensor<4xf32>) -> () attributes {t.note = "deepest"} {
          %g = mix.gelu %d : (tensor<4xf32>) -> tensor<4xf32>
          mix.yield
        }
        mix.yield
      }
      mix.yield
    }
    mix.yield
  }
  mix.block @empty () : () -> () {
    mix.yield
  }
  mix.return
}

// Every network precision (i32 is not a network precision).
mix.network @net_f64 precision(f64) () {
  mix.return
}
mix.network @net_f16 precision(f16) () {
  mix.return
}
mix.network @net_bf16 precision(bf16) () {
  mix.return
}
mix.network @net_int8 precision(int8<asymmetric, axis = 1>) () {
  mix.block @b precision(int8<symmetric>) () : () -> () {
    mix.yield
  }
  mix.return
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

mix.network @weights precision(f32) () {
  %0 = mix.weight dense<0.5> : tensor<4xf32>
  %1 = mix.weight dense<[1.0, -2.0]> : tensor<2xf16>
  %2 = mix.weight dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %3 = mix.weight dense<0.0> : tensor<3xf64> {t.kept}
  %4 = mix.weight external "stage1.conv1.weight" : tensor<16x3x3x3xf32>
  %5 = mix.weight external "with \"quotes\"" {t.shard = 2 : i64} : tensor<8x4xf32>
  mix.return
}

//===----------------------------------------------------------------------===//
// precision(...) clauses
//===----------------------------------------------------------------------===//

mix.network @clauses precision(f32) (%x: tensor<2x8xf32>) {
  %w = mix.weight external "w" : tensor<8x4xf32>
  %b = mix.weight dense<0.0> : tensor<4xf32>
  %0 = mix.dense %x, %w, %b : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = mix.dense %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %2 = mix.dense %x, %w precision(f64) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %3 = mix.dense %x, %w precision(f32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %4 = mix.dense %x, %w precision(f16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %5 = mix.dense %x, %w precision(bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %6 = mix.dense %x, %w precision(int8) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %7 = mix.dense %x, %w precision(int8<symmetric>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %8 = mix.dense %x, %w precision(int8<asymmetric>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %9 = mix.dense %x, %w precision(int8<axis = 1>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %10 = mix.dense %x, %w precision(int8<symmetric, axis = 0>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %11 = mix.dense %x, %w precision(int8<asymmetric, axis = 1>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %12 = mix.dense %x, %w precision(weights = int8<axis = 1>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %13 = mix.dense %x, %w precision(activations = bf16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %14 = mix.dense %x, %w precision(accumulator = i32) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %15 = mix.dense %x, %w precision(accumulator = f64) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %16 = mix.dense %x, %w precision(output = f16) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  // Properties print in canonical order (weights, activations, accumulator, output).
  %17 = mix.dense %x, %w precision(f16, output = f32, accumulator = f32, activations = f16, weights = int8<asymmetric>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %18 = mix.dense %x, %w precision(output = bf16, weights = int8, accumulator = i32, activations = int8<asymmetric>) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %19 = mix.dense %x, %w precision(int8, accumulator = i32) {t.extra = 1 : i64} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %20 = mix.dense %x, %w precision(f16) {resolved = #mix.resolved<weights = f16 from layer, activations = f16 from layer, accumulator = f32 from derived, output = f16 from layer>} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  mix.return
}

//===----------------------------------------------------------------------===//
// Layers, each without and with a precision clause, with their attributes
//===----------------------------------------------------------------------===//

mix.network @gemm_layers precision(f32) (%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
  %0 = mix.matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  %1 = mix.matmul %a, %b precision(int8<asymmetric>, accumulator = i32, output = f16) : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  %2 = mix.matmul %a, %b precision(activations = f16) : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  mix.return %0, %1, %2 : tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>
}

mix.network @conv precision(f32) (%x: tensor<1x4x8x8xf32>) {
  %w = mix.weight external "c.w" : tensor<8x4x3x3xf32>
  %wg = mix.weight external "c.wg" : tensor<8x2x3x3xf32>
  %bias = mix.weight dense<1.0> : tensor<8xf32>
  %0 = mix.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = mix.conv2d %x, %w, %bias precision(int8<axis = 0>, accumulator = i32) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %2 = mix.conv2d %x, %wg precision(bf16) {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 1, 0>, dilations = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x3x4xf32>
  mix.return
}

mix.network @norms precision(f32) (%x: tensor<1x16x4x4xf32>, %t: tensor<2x5x64xf32>) {
  %s = mix.weight external "bn.scale" : tensor<16xf32>
  %b = mix.weight external "bn.bias" : tensor<16xf32>
  %m = mix.weight external "bn.mean" : tensor<16xf32>
  %v = mix.weight external "bn.var" : tensor<16xf32>
  %g = mix.weight dense<1.0> : tensor<64xf32>
  %be = mix.weight dense<0.0> : tensor<64xf32>
  %0 = mix.batch_norm %x, %s, %b, %m, %v : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %1 = mix.batch_norm %x, %s, %b, %m, %v precision(f64, weights = f16) {epsilon = 1.0e-3 : f64} : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %2 = mix.layer_norm %t, %g, %be : (tensor<2x5x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  %3 = mix.layer_norm %t, %g, %be precision(bf16, accumulator = f32) {epsilon = 1.0e-6 : f64} : (tensor<2x5x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  mix.return
}

mix.network @elementwise precision(f32) (%x: tensor<4x10xf32>, %row: tensor<10xf32>, %col: tensor<4x1xf32>) {
  %0 = mix.softmax %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %1 = mix.softmax %x precision(f32, activations = f16) {axis = 0 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %2 = mix.softmax %x {axis = -2 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %3 = mix.relu %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %4 = mix.relu %x precision(bf16) : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %5 = mix.gelu %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %6 = mix.gelu %x precision(output = f32) {approximate = true} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %7 = mix.add %x, %row : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  %8 = mix.add %row, %col precision(f16) : (tensor<10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
  %9 = mix.mul %x, %col : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
  %10 = mix.mul %x, %x precision(activations = bf16, output = f32) : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  mix.return
}

// Mixed element types of the interface tensors are legal (f16, bf16, f64).
mix.network @element_types precision(f32) (%h: tensor<3xf16>, %b: tensor<3xbf16>, %d: tensor<3xf64>, %s: tensor<f64>) {
  %0 = mix.relu %h : (tensor<3xf16>) -> tensor<3xf16>
  %1 = mix.relu %b : (tensor<3xbf16>) -> tensor<3xbf16>
  %2 = mix.add %d, %s : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
  mix.return
}

mix.network @lookup_and_pool precision(f32) (%ids: tensor<2x16xi32>, %ids64: tensor<3xi64>, %img: tensor<1x16x8x8xf32>) {
  %table = mix.weight external "emb" : tensor<100x64xf32>
  %0 = mix.embedding %ids, %table : (tensor<2x16xi32>, tensor<100x64xf32>) -> tensor<2x16x64xf32>
  %1 = mix.embedding %ids64, %table precision(weights = int8<axis = 0>) : (tensor<3xi64>, tensor<100x64xf32>) -> tensor<3x64xf32>
  %2 = mix.global_avg_pool %img : (tensor<1x16x8x8xf32>) -> tensor<1x16xf32>
  %3 = mix.global_avg_pool %img precision(f32, accumulator = f64) : (tensor<1x16x8x8xf32>) -> tensor<1x16xf32>
  %4 = mix.max_pool2d %img {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
  %5 = mix.max_pool2d %img precision(f16) {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %6 = mix.max_pool2d %img {kernel = array<i64: 3, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x6x7xf32>
  mix.return
}

mix.network @shapes precision(f32) (%x: tensor<2x3x4x5xf32>) {
  %0 = mix.reshape %x : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
  %1 = mix.reshape %x precision(f16) : (tensor<2x3x4x5xf32>) -> tensor<120xf32>
  %2 = mix.flatten %x : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
  %3 = mix.flatten %x precision(bf16) {start_dim = 0 : i64} : (tensor<2x3x4x5xf32>) -> tensor<120xf32>
  %4 = mix.flatten %x {start_dim = 3 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  mix.return
}

mix.network @attention precision(f32) (%x: tensor<2x5x8xf32>) {
  %q = mix.weight external "q" : tensor<8x8xf32>
  %k = mix.weight external "k" : tensor<8x8xf32>
  %v = mix.weight external "v" : tensor<8x8xf32>
  %o = mix.weight external "o" : tensor<8x8xf32>
  %0 = mix.attention %x, %q, %k, %v, %o {num_heads = 2 : i64} : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %1 = mix.attention %x, %q, %k, %v, %o precision(int8<axis = 1>, activations = f16, accumulator = f32) {num_heads = 8 : i64, causal = true} : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  %2 = mix.attention %x, %q, %k, %v, %o {num_heads = 1 : i64, causal = false} : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  mix.return
}

mix.network @losses precision(f32) (%logits: tensor<4x10xf32>, %labels: tensor<4xi32>, %p: tensor<4x3xf32>, %t: tensor<4x3xf32>) -> (tensor<f32>, tensor<f64>) {
  %0 = mix.cross_entropy_loss %logits, %labels : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  %1 = mix.cross_entropy_loss %logits, %labels precision(f64) : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f16>
  %2 = mix.mse_loss %p, %t : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
  %3 = mix.mse_loss %p, %t precision(f32, accumulator = f64) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f64>
  mix.return %0, %3 : tensor<f32>, tensor<f64>
}

// Resolved records already present on layers survive the round trip,
// including ones without weights and with unnamed origins.
mix.network @resolved precision(f32) (%x: tensor<4xf32>) {
  %0 = mix.relu %x {resolved = #mix.resolved<activations = f16 from block, accumulator = f32 from derived, output = f16 from block>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = mix.relu %x precision(int8) {resolved = #mix.resolved<activations = int8 from layer, accumulator = i32 from derived, output = f32 from derived>} : (tensor<4xf32>) -> tensor<4xf32>
  mix.return
}

}

mix.network @casts precision(f32) (%x: tensor<2x4xf32>) -> (tensor<2x4xf16>, tensor<2x4xbf16>) {
  %0 = mix.cast %x : tensor<2x4xf32> to tensor<2x4xf16>
  %1 = mix.cast %x checked : tensor<2x4xf32> to tensor<2x4xbf16>
  mix.return %0, %1 : tensor<2x4xf16>, tensor<2x4xbf16>
}
