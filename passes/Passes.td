//===- Passes.td - mixc passes -----------------------------*- tablegen -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIX_PASSES_TD
#define MIX_PASSES_TD

include "mlir/Pass/PassBase.td"

def MixSpecializeBatchPass : Pass<"mix-specialize-batch", "mlir::ModuleOp"> {
  let summary = "Give networks with a dynamic batch a static one";
  let description = [{
    A network whose inputs have a dynamic leading dimension (`?`, the batch)
    computes each sample of a batch on its own (docs/dialect.md, "Dynamic
    batch"), so it is compiled for a fixed number of samples per call of the
    lowered function and called once per group by the entry point of the C
    header. This pass, the first of the pipeline, replaces the leading `?`
    of every value of such a network (its arguments, every op result and
    block argument inside it) by `batch`. Networks with static shapes are
    left unchanged; running the pass twice changes nothing.

    Before:
    ```mlir
    mix.network @n precision(f32) (%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
      %r = mix.relu %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
      mix.return %r : tensor<?x8xf32>
    }
    ```
    After (`batch=1`):
    ```mlir
    mix.network @n precision(f32) (%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %r = mix.relu %x : (tensor<1x8xf32>) -> tensor<1x8xf32>
      mix.return %r : tensor<1x8xf32>
    }
    ```
  }];
  let options = [
    Option<"batch", "batch", "int64_t", /*default=*/"1",
           "Samples per call of the lowered network (>= 1)">,
  ];
  let statistics = [
    Statistic<"numNetworks", "networks",
              "Networks with a dynamic batch specialized">,
  ];
  let dependentDialects = ["::mix::MixDialect"];
}

def MixResolvePrecisionPass : Pass<"mix-resolve-precision", "mlir::ModuleOp"> {
  let summary = "Give every layer property a concrete precision and its provenance";
  let description = [{
    For every layer, each property (`weights`, `activations`, `accumulator`,
    `output`) gets a concrete precision by the rule

      property override > layer precision > innermost enclosing block > ...
      > network default

    The accumulator and output, when nothing overrides them, are derived:
    the accumulator is `i32` when the layer multiplies int8 by int8, `f64`
    when weights or activations are f64, `f32` otherwise; the output is the
    activations precision, except that int8 layers output f32 (their i32
    accumulator is rescaled to f32).

    The result is recorded on each layer as a `resolved` attribute naming the
    level that decided each property. Running the pass twice changes nothing.

    Before:
    ```mlir
    mix.network @n precision(f32) (%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
      %y = mix.block @s precision(f16) (%a = %x) : (tensor<1x8xf32>) -> tensor<1x8xf32> {
        %r = mix.relu %a : (tensor<1x8xf32>) -> tensor<1x8xf32>
        mix.yield %r : tensor<1x8xf32>
      }
      mix.return %y : tensor<1x8xf32>
    }
    ```
    After, the relu carries:
    ```mlir
    {resolved = #mix.resolved<activations = f16 from block @s,
       accumulator = f32 from derived, output = f16 from block @s>}
    ```
  }];
  let dependentDialects = ["::mix::MixDialect"];
  let statistics = [
    Statistic<"numLayers", "layers", "Number of layers resolved">,
    Statistic<"numFromProperty", "from-property",
              "Properties decided by a per-property override">,
    Statistic<"numFromLayer", "from-layer",
              "Properties decided by a layer precision">,
    Statistic<"numFromBlock", "from-block",
              "Properties inherited from a block">,
    Statistic<"numFromNetwork", "from-network",
              "Properties inherited from the network default">,
    Statistic<"numDerived", "derived",
              "Accumulator/output precisions derived by default">,
  ];
}

def MixVerifyPolicyPass : Pass<"mix-verify-policy", "mlir::ModuleOp"> {
  let summary = "Check the resolved precisions against a precision policy";
  let description = [{
    Resolves every layer (as `mix-resolve-precision` does, without changing
    the IR) and checks the result against a policy: the built-in default, or
    a JSON policy file (see docs/policy.md). Each violation is reported at
    the layer with the rule's severity (error or warning), naming the rule
    and the resolved precision, with a note at the op the precision was
    inherited from. The pass fails when any error is reported.

    Example diagnostic:
    ```
    model.mlir:12:10: error: [sensitive-op-precision] 'mix.batch_norm' computes in f16 (activations); normalization layers must compute in >= f32
    model.mlir:7:8: note: f16 inherited from block @stage1
    ```
  }];
  let dependentDialects = ["::mix::MixDialect"];
  let options = [
    Option<"policyPath", "policy", "std::string", /*default=*/"\"\"",
           "JSON policy file (empty: the built-in default policy)">,
  ];
  let statistics = [
    Statistic<"numErrors", "errors", "Policy errors reported">,
    Statistic<"numWarnings", "warnings", "Policy warnings reported">,
  ];
}

def MixDifferentiatePass : Pass<"mix-differentiate", "mlir::ModuleOp"> {
  let summary = "Build the gradient network of a network that ends in a loss";
  let description = [{
    For each network whose last result is a loss (or only `network`), adds
    `@<name>_grad` after it. It takes the network's inputs and a
    `loss_scale` (`tensor<f32>`), and returns the loss, then the gradient
    of `loss_scale * loss` with respect to every floating-point weight the
    loss depends on, in the order the weights appear; each output is named
    (`mix.name`) `loss` or `grad.<weight name>`. With `weights-as-inputs`,
    those weights are inputs of the gradient network instead of constants
    (after `loss_scale`, named as the weights, in the order of the
    gradients): what a training step that updates them calls. A weight its
    layers read at f16 or bf16 carries `mix.working_precision` (the step
    rounds its working copy to that precision once, from the master), and
    `@<name>_initial_weights` (no inputs) returns the values the weights
    start from, then the running statistics of each batch_norm (named as
    those weights): what `mixc --train` compiles for `NAME_train_init`.
    Each batch_norm adds two outputs, `batch_mean.<mean weight>` and
    `batch_var.<variance weight>` (the unbiased variance), which the step
    folds into the running statistics.

    The gradient is written in ordinary mix ops (the rules are in
    docs/precision.md, "Gradients"), so the gradient network resolves,
    lints, compiles and interprets like any other. The forward is kept, not
    recomputed, except in blocks marked `mix.recompute`: their forward is
    computed again just before their backward, which reads the copies
    (same gradients, less memory held between forward and backward). The
    forward layers and the backward of each layer sit in
    blocks named as the blocks that enclosed the forward layer, with their
    precisions: the backward of a layer runs at the layer's precision (f32
    for an int8 layer); weight gradients are computed and summed at f32
    (f64 for f64 weights). A layer on the path from a weight to the loss
    without a gradient rule is an error naming it.

    Before:
    ```mlir
    mix.network @fit precision(f32) (%x: tensor<4x3xf32>, %t: tensor<4x2xf32>) -> tensor<f32> {
      %w = mix.weight external "w" : tensor<3x2xf32>
      %y = mix.dense %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
      %l = mix.mse_loss %y, %t : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<f32>
      mix.return %l : tensor<f32>
    }
    ```
    After, next to it:
    ```mlir
    mix.network @fit_grad precision(f32) (%x: tensor<4x3xf32>, %t: tensor<4x2xf32>,
        %s: tensor<f32> {mix.name = "loss_scale"})
        -> (tensor<f32> {mix.name = "loss"}, tensor<3x2xf32> {mix.name = "grad.w"}) {
      // the forward, then dy = (y - t) * (s * 2/8) and dw = x^T dy
    }
    ```
  }];
  let options = [
    Option<"network", "network", "std::string", /*default=*/"\"\"",
           "Differentiate only this network (default: every network that "
           "ends in a loss)">,
    Option<"weightsAsInputs", "weights-as-inputs", "bool", /*default=*/"false",
           "Make the differentiated weights inputs of the gradient network, "
           "after loss_scale and in the order of the gradients (a training "
           "step feeds it the current weights), and add "
           "@<name>_initial_weights">,
  ];
  let statistics = [
    Statistic<"numNetworks", "networks", "Gradient networks built">,
  ];
  let dependentDialects = ["::mix::MixDialect"];
}

def MixFoldBatchNormPass : Pass<"mix-fold-batch-norm", "mlir::ModuleOp"> {
  let summary = "Fold inference batch_norm layers into the conv2d before them";
  let description = [{
    After resolution, replaces `batch_norm(conv2d(x, w, b))` by
    `conv2d(x, w', b')` with, per output channel f,
    `s = scale[f] / sqrt(variance[f] + epsilon)`, `w'[f] = w[f] * s` and
    `b'[f] = (b[f] - mean[f]) * s + bias[f]`, computed in f64 at compile time
    and rounded once to the conv2d's weights precision (the bias to its
    declared type). Only where nothing the resolved precisions promise is
    lost: a float conv2d whose accumulator is at least as wide as the
    batch_norm's accumulator and activations and whose output is at least
    as wide as the batch_norm's output (a batch_norm kept in f32 after an
    f16 conv2d stays), the conv2d's result used only by the batch_norm
    (directly or through block boundaries), and every weight bound to data. The folded conv2d carries
    `mix.folded_batch_norm`, the batch_norm's location, for `mixc --report`.

    Before:
    ```mlir
    %c = mix.conv2d %x, %w, %b : ...
    %n = mix.batch_norm %c, %s, %o, %m, %v : ...
    ```
    After:
    ```mlir
    %c = mix.conv2d %x, %w2, %b2 {mix.folded_batch_norm = loc(...)} : ...
    ```
  }];
  let dependentDialects = ["::mix::MixDialect"];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per batch_norm after a conv2d: folded, or why not">,
  ];
}

def MixInsertCastsPass : Pass<"mix-insert-casts", "mlir::ModuleOp"> {
  let summary = "Make precision changes explicit with mix.cast";
  let description = [{
    After resolution, gives every value the element type of the precision it
    is produced at and inserts a `mix.cast` wherever a value is consumed at
    another precision:

    - each layer's activation operands are cast to its activations precision
      and its weight operands to its weights precision (int8 operands stay
      in f32 here: `mix-quantize` turns them into int8 arithmetic);
    - each layer's result takes its output precision;
    - blocks take the types of the values bound to them and of the values
      they yield, so precisions flow through block boundaries without
      round trips; the network keeps its declared signature (casts before
      `mix.return`).

    No cast explosion: a value gets at most one cast per target type, shared
    by all its uses; casts to the same type are never created and
    `cast(cast(x))` folds when the inner cast is an exact widening. Narrowing
    casts are `checked` unless `checked=false`. Layers without a `resolved`
    attribute are resolved on the fly.

    Before (a relu in an f16 block):
    ```mlir
    %r = mix.relu %a {resolved = #mix.resolved<activations = f16 from block @s, ...>}
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %c = mix.cast %a checked : tensor<4xf32> to tensor<4xf16>
    %r = mix.relu %c {resolved = ...} : (tensor<4xf16>) -> tensor<4xf16>
    ```
  }];
  let dependentDialects = ["::mix::MixDialect"];
  let options = [
    Option<"checked", "checked", "bool", /*default=*/"true",
           "Mark narrowing casts as checked (overflow to inf is reported)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per network and block with its number of casts">,
  ];
  let statistics = [
    Statistic<"numCasts", "casts", "Number of mix.cast ops inserted">,
  ];
}

def MixCheckInt8AccumulationPass
    : Pass<"mix-check-int8-accumulation", "mlir::ModuleOp"> {
  let summary = "Prove that no int8 layer can overflow its i32 accumulator";
  let description = [{
    For every layer that multiplies int8 by int8 (dense, matmul, conv2d,
    attention projections), bounds the exact sum from the quantization
    schemes alone: K * max|a - za| * max|b - zb|, with max |q - z| = 127 for
    symmetric and 255 for asymmetric int8, where K is the number of products
    per output (dense/matmul: K; conv2d: C/groups * KH * KW; attention: E).
    A layer whose bound exceeds 2^31 - 1 is rejected with a diagnostic that
    gives K, the bound and the largest safe K. With `split-k`, such a dense,
    matmul or conv2d (groups = 1) layer is instead marked with
    `mix.k_chunk = <largest safe K>`: `mix-quantize` then sums K in i32
    pieces of at most that many products and adds the pieces exactly in f64,
    so the result equals the exact sum. The bias is not part of the bound:
    mixc adds it in f32 after the rescale, never in the i32 accumulator.

    ```
    error: 'mix.dense' op int8 accumulation can overflow int32: K = 140000
      products of at most 127 x 127 sum to 2258060000 > 2147483647; at most
      133144 products per i32 sum are safe (split K or use a float precision)
    ```
  }];
  let dependentDialects = ["::mix::MixDialect"];
  let options = [
    Option<"splitK", "split-k", "bool", /*default=*/"false",
           "Split K of layers that could overflow instead of rejecting them">,
  ];
}

def MixQuantizePass : Pass<"mix-quantize", "mlir::ModuleOp"> {
  let summary = "Turn int8 layers into quantize, integer GEMM and rescale";
  let description = [{
    For every dense, matmul and conv2d layer resolved to int8 activations
    (and int8 weights for dense and conv2d):

    - the weights (inline data: load external weights first) are quantized
      at compile time with mixrt's own quantizer, so the values are
      bit-identical to `mixrt_quantize_f32`; symmetric per output channel by
      default (dense axis 1, conv2d axis 0), the scheme from the weights'
      precision (`int8<asymmetric>`), per tensor with
      `weight-granularity=tensor`;
    - the activation input gets a `mix.quantize`: static scale and zero
      point from the calibration file (`calibration=<file>`, keys
      `<layer path>/input`, or `/lhs` and `/rhs` for matmul), or computed on
      every call (dynamic) when no file is given;
    - the layer becomes `mix.qdense` / `mix.qmatmul` / `mix.qconv2d`: exact
      i32 accumulation with zero-point corrections and the rescale
      `(f32)((f64)sa * (f64)sb * (f64)acc)`, then the f32 bias.

    An int8 `mix.attention` quantizes its input once for the q, k and v
    `mix.qdense` projections, runs the scores and softmax in f32
    (`mix.attention_core`) and quantizes the context dynamically before the
    output projection. Weights-only or activations-only int8 (the other one a
    float) is rejected with a diagnostic.

    ```mlir
    %xq, %xs, %xz = mix.quantize %x symmetric checked
        : tensor<1x64xf32> -> tensor<1x64xi8>, tensor<f32>, tensor<i32>
    %wq = mix.weight dense<...> : tensor<64x10xi8>
    %ws = mix.weight dense<...> : tensor<10xf32>
    %wz = mix.weight dense<0> : tensor<10xi32>
    %y = mix.qdense %xq, %xs, %xz, %wq, %ws, %wz, %b : (...) -> tensor<1x10xf32>
    ```
  }];
  let dependentDialects = ["::mix::MixDialect"];
  let options = [
    Option<"calibration", "calibration", "std::string", /*default=*/"",
           "Calibration file with activation ranges (empty: dynamic scales)">,
    Option<"weightGranularity", "weight-granularity", "std::string",
           /*default=*/"\"channel\"",
           "Weight scales per output 'channel' (default) or per 'tensor'">,
    Option<"checked", "checked", "bool", /*default=*/"true",
           "Report non-finite values reaching a quantize at run time">,
  ];
  let statistics = [
    Statistic<"numQuantized", "layers", "Number of int8 layers quantized">,
  ];
}

def ConvertMixToLinalgPass : Pass<"convert-mix-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower mix networks to func + linalg/arith/math/tensor";
  let description = [{
    Inlines every `mix.block` (precisions are already explicit after
    `mix-insert-casts`), turns each `mix.network` into a `func.func` with the
    same signature (`llvm.emit_c_interface` set), and each layer into
    `linalg` ops on tensors:

    - elementwise layers and `mix.cast` become `linalg.generic` with
      numpy-broadcast indexing maps; the body computes in the operand type
      and converts once to the result type;
    - `mix.dense` and `mix.matmul` become a `linalg.generic` contraction
      whose body extends the operands to the accumulator precision (from the
      layer's resolution) and accumulates with one fused multiply-add per
      step, k ascending (mixrt's reduced-GEMM order), then one conversion to
      the output type (after the bias);
    - `mix.softmax` subtracts the row maximum, evaluates exp at activations
      precision and sums at accumulator precision;
    - inline `mix.weight` data becomes `arith.constant`.

    - `checked` casts that can overflow and `checked` quantizes get a
      run-time check per element that calls
      `mixrt_check_fail(code, "file:line:col", what, index, value)` when a
      finite value becomes infinite or a non-finite value reaches int8
      (`checks=false` leaves them out);
    - `mix.quantize` and the integer GEMMs follow mixrt's arithmetic bit for
      bit (ConvertQuantizedToLinalg.cpp).

    Linalg is the level where tiling and vectorization plug in. External
    weights must be loaded first, and int8 layers quantized by
    `mix-quantize`; otherwise the conversion fails with a diagnostic at the
    op.
  }];
  let options = [
    Option<"checks", "checks", "bool", /*default=*/"true",
           "Emit the run-time checks of checked casts and quantizes">,
    Option<"microkernels", "microkernels", "bool", /*default=*/"true",
           "Lower f32 convolutions as im2col GEMMs for mix-use-microkernels">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect", "::mlir::scf::SCFDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def MixMangleNetworkSymbolsPass
    : Pass<"mix-mangle-network-symbols", "mlir::ModuleOp"> {
  let summary = "Rename network functions so no user name meets a C library name";
  let description = [{
    The first step of the LLVM phase. A network is free to be called
    `@malloc`, `@free` or `@logf`, but the lowering after it declares the C
    library's functions by exactly those names (`finalize-memref-to-llvm`,
    `convert-math-to-libm`). Every public `func.func` with
    `llvm.emit_c_interface` (one per network) is renamed from `@NAME` to
    `@mixc_net_NAME`, with its uses; `mix-export-network-symbols` gives the C
    interface its public name back at the end.

    ```mlir
    func.func @malloc(%x: memref<4xf32>) attributes {llvm.emit_c_interface}
    // becomes
    func.func @mixc_net_malloc(%x: memref<4xf32>) attributes {llvm.emit_c_interface}
    ```

    A function already called `@mixc_net_NAME` is an error (the verifier of
    `mix.network` reserves the `mixc_` prefix, so only hand-written IR can
    have one).
  }];
}

def MixPackDequantizedWeightsPass
    : Pass<"mix-pack-dequantized-weights", "mlir::ModuleOp"> {
  let summary = "Fold weight-only int8 weights and pack them for the float GEMM";
  let description = [{
    Runs in the LLVM phase after bufferization, before `mix-plan-memory`,
    when microkernels are on. A weight-only int8 `dense` (or `attention`
    projection) is, after the lowering, a GEMM marked `"gemm_f32"` reading
    a [K, N] f32 buffer that a `mix.dequantize` loop (marked
    `"dequantize"`) fills on every call from constant globals: the int8
    values and their scales and zero points, per column (axis 1) or per
    tensor. When that buffer is an allocation of its own (not an argument
    or result of the network) that only GEMMs read, and the GEMM has at
    most 32 rows (M, C's elements over N) or an input of rank 3 or more, the pass

    - computes the dequantized weight at compile time with the loop's
      arithmetic (`scale * (float)(int32)(q - zp)`, the difference modulo
      2^32, one f32 product: the same bits) into a constant f32 global
      `@NAME_dequantized`, which the GEMM now reads;
    - packs the int8 values with their parameters
      (`mixrt_ukernel_pack_b_dequantized`) into `@NAME_packed` and names it
      on the f32 global (`mix_packed_dequantized`);
    - drops the dequantize loop and its buffer (with the last GEMM reading
      it), and the int8 globals nothing else reads.

    `mix-use-microkernels` then calls `mixrt_ukernel_gemm_f32` on the packed
    form (`mixrt_ukernel_gemm_f32` dequantizes each weight in registers as
    the loop did) and drops the f32 global; the memory plan never reserves
    the K x N f32 buffer. From 33 rows of a rank-2 input, dequantizing once
    per call and the product of two activations are faster
    (docs/runtime.md), and nothing changes.

    A weight-only int8 `lstm` or `gru` weight (a dequantized buffer of any
    rank, parameters along one axis or one, read only by the layer's
    `"recurrent_gemm_f32"` GEMMs through views, the loop before them) is
    folded the same way into `@NAME_dequantized`, which names its int8
    values, scales and zero points (`mix_dequantized_from`,
    `mix_dequantized_axis`): `mix-use-microkernels` packs each GEMM's view
    W^T in int8 with its columns' parameters, and drops what nothing reads.

    ```mlir
    linalg.generic {mix.ukernel = "dequantize", ...}
        ins(%q, %s, %z : memref<512x256xi8>, memref<256xf32>, memref<256xi32>)
        outs(%w : memref<512x256xf32>)
    linalg.generic {mix.ukernel = "gemm_f32", ...}
        ins(%x, %w : memref<4x512xf32>, memref<512x256xf32>) outs(%acc : ...)
    // becomes
    %w = memref.get_global @__constant_512x256xi8_dequantized : memref<512x256xf32>
    linalg.generic {mix.ukernel = "gemm_f32", ...}
        ins(%x, %w : memref<4x512xf32>, memref<512x256xf32>) outs(%acc : ...)
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numFolded", "folded", "Weight-only int8 weights folded (dense GEMMs reading them, lstm/gru buffers) with a packed int8 form">,
  ];
}

def MixPlanMemoryPass : Pass<"mix-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every intermediate buffer of a network in one workspace";
  let description = [{
    Runs in the LLVM phase after bufferization, on every network function
    (`@mixc_net_NAME`, see `mix-mangle-network-symbols`). Each statically
    shaped `memref.alloc` at the top level of the function is an
    intermediate buffer, live from its first to its last use (uses through
    view-like ops count). The pass

    - lets an elementwise `linalg.generic` (parallel iterators, identity
      maps) write into an input whose last use it is, when the two have the
      same size and element width and no other operand reads that input
      (transposed, say, as a fused `z + transpose(z)` does) or another view
      of it (in place, as TFLite Micro and TVM's planners do);
    - keeps what an int8 convolution (the loop marked `"conv2d_s8"`) reads
      live through the rescale loop, relu and quantize right after it,
      which `mix-use-microkernels` may run inside the convolution's call
      (`mixrt_ukernel_conv2d_s8_rescale`), and the rescale's scales: their
      outputs are then never placed in those bytes (a little more
      workspace: the small CNN of `bench_conv` 1,003,520 -> 1,103,872
      bytes; `int8-epilogues=false`, which mixc passes without
      microkernels, does not); likewise the int8 input and zero point of an
      int8 depthwise convolution (the loop converting them right before
      the `"depthwise_f32"` loop), which
      `mixrt_ukernel_depthwise_s8_rescale` reads while it writes the
      rescale's or relu's output (the MobileNet-V2 stack in int8:
      3,612,736 -> 4,064,384 bytes);
    - places the buffers in one workspace, largest first, each at the lowest
      64-byte-aligned offset that overlaps no buffer live at the same time;
    - adds the workspace as a last argument `memref<Nxi8>` and replaces each
      allocation by a `memref.view` into it, so the function allocates
      nothing;
    - records `mix.memory_plan = {workspace = N, intermediates = S,
      peak = P}`: the workspace bytes, the sum of all buffers and the
      liveness lower bound (the most bytes live at once);
    - adds the convenience function `@mixc_alloc_NAME` with the network's
      own signature, which allocates one workspace, calls the planned
      function and frees it (its C interface becomes `_mlir_ciface_NAME`);
      with `allocating-entry=false` (freestanding code, which has no heap)
      it does not.

    ```mlir
    %a = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
    // becomes, in @mixc_net_NAME(..., %ws: memref<64xi8>)
    %c0 = arith.constant 0 : index
    %a = memref.view %ws[%c0][] : memref<64xi8> to memref<2x3xf32>
    ```

    Allocations it cannot place (dynamic shapes, inside regions, returned)
    stay, and the deallocation pipeline that follows frees them.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let options = [
    Option<"allocatingEntry", "allocating-entry", "bool", /*default=*/"true",
           "Add @mixc_alloc_NAME, which allocates the workspace with malloc">,
    Option<"int8Epilogues", "int8-epilogues", "bool", /*default=*/"true",
           "Keep what an int8 convolution reads live through its epilogue "
           "(for mix-use-microkernels' fused call)">,
  ];
  let statistics = [
    Statistic<"numPlanned", "buffers", "Number of buffers placed in a workspace">,
    Statistic<"numInPlace", "in-place", "Number of buffers written in place of an input">,
  ];
}

def MixFuseElementwisePass : Pass<"mix-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse chains of elementwise layers into one loop";
  let description = [{
    Runs on the lowered networks before bufferization (the pipeline option
    `fuse-elementwise`, on by default). An elementwise `linalg.generic`
    (every loop parallel) whose one result is read only by another
    `linalg.generic` is computed inside that consumer, element by element
    (MLIR's elementwise fusion): a convolution's bias epilogue, the batch
    norm, the activation and the residual add after it become one pass over
    memory instead of one per layer. Each element goes through the same
    scalar operations in the same order, with the same roundings: results
    are bit-identical.

    Left alone: generics with a run-time check (a call of
    `mixrt_check_fail`: fusing would interleave the checks of two layers and
    change which failure is reported first), and generics marked for
    `mix-use-microkernels` (`mix.ukernel`, `mix.ukernel_bias`), which must
    keep their form to become calls -- except an unchecked int8 rescale
    (`"rescale"`, a loop the pass only tiles), which fuses like any
    elementwise loop and passes its mark to the fused loop, unless it
    rescales a `qdense` GEMM (`"gemm_s8"`): `mix-use-microkernels` computes
    that rescale, and a relu after it, in the GEMM's call.

    ```mlir
    %b = linalg.generic ... ins(%sum, %bias) outs(%e0) { addf }   // bias
    %r = linalg.generic ... ins(%b) outs(%e1) { maximumf }        // relu
    // becomes
    %r = linalg.generic ... ins(%sum, %bias) outs(%e1) { addf; maximumf }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numFused", "fused", "Elementwise producers fused into their consumer">,
  ];
}

def MixUseMicrokernelsPass : Pass<"mix-use-microkernels", "mlir::ModuleOp"> {
  let summary = "Call mixrt's GEMM microkernels with weights packed at compile time";
  let description = [{
    Runs in the LLVM phase after `mix-plan-memory`. The lowering marks the
    GEMM of each `dense` layer with f32 activations and an f32 accumulator
    (`mix.ukernel = "gemm_f32"`) and the exact i32 GEMM of each `qdense`
    whose K is not split (`"gemm_s8"`), and the per-tensor range (min and
    max from +0) of each dynamic f32 quantize (`"range_f32"`, which becomes
    one call of `mixrt_ukernel_range_f32`), and each f32 quantize
    (`"quantize_f32"`, `"checked_quantize"`): per tensor it becomes one call
    of `mixrt_ukernel_quantize_f32_s8`, the loop kept behind it for when the
    call refuses a NaN scale or, checked, finds a non-finite input (the loop
    then reports it). When the marked GEMM's weight is a
    constant global (K x N; f32, f16 or bf16, or i8), its activations and
    result are contiguous row-major buffers and a zero fill of the result
    comes right before it, the pass

    - packs the weight once, at compile time, with mixrt's own
      `mixrt_ukernel_pack_b` into a 64-byte-aligned global `@NAME_packed`
      (the unpacked weight is dropped when nothing else reads it);
    - replaces the fill and the GEMM by one call of
      `mixrt_ukernel_gemm_f32` or `mixrt_ukernel_gemm_s8s8s32`, which pick
      their kernel (portable, AVX2, AVX-512, AVX-512 VNNI) at run time;
    - for f32, also moves the bias epilogue into the call
      (`mix.ukernel_bias`: `acc + bias[n]` in f32) when its result provably
      does not overlap the activations (distinct workspace ranges, or one
      workspace view and one caller buffer), and a relu right after the
      bias or the GEMM (`MIXRT_UKERNEL_RELU`, under the same conditions as
      the int8 relu below), the call then writing the relu's buffer;
    - for int8, calls `mixrt_ukernel_gemm_s8s8f32` instead, with the rescale
      epilogue right after the GEMM (`(f32)((f64)sa * (f64)sb[n] *
      (f64)acc)`, then `+ bias[n]` in f32) in the call, when the weight
      scales are positive and finite constants, the bias a finite constant
      (or none) and the output overlaps none of the call's inputs. The GEMM
      into the i32 accumulator and the rescale loop stay, run only when the
      call refuses its activation scale (NaN or infinite, from a non-finite
      input) or, when checked, when `sa * max(sb) * 2^31` could overflow f32
      (the loop reports the overflow). A relu right after the rescale
      (`arith.maximumf(x, +0)`, reading only its output, under the same
      conditions as below) runs in the call's epilogue too
      (`MIXRT_UKERNEL_RELU`), which then writes the relu's buffer; the relu
      loop stays after the rescale loop for the case the call refuses.

    An int8 rescale loop that stays (qconv2d's, or a qdense's not folded
    into the call; `"checked_rescale"` or, without checks, `"rescale"`)
    also computes a relu (`arith.maximumf(x, +0)`) right after it that
    reads only its output, and writes the relu's buffer: one pass over
    memory, the same bits. That needs: no other reader of the rescale's
    output; the output in the workspace unless the relu is in place (the
    same bytes); the relu's buffer disjoint from what the rescale reads.

    The loop of a depthwise `conv2d` (groups == C == F, f32; marked
    `"depthwise_f32"` with its strides, dilations and padding in
    `mix.ukernel_window`), which reads a contiguous NCHW input unpadded in
    its body, with weight [C, 1, KH, KW] and output buffers becomes one call
    of `mixrt_ukernel_depthwise_f32` on that input with the padding (no
    padded copy; any weight, constant or not; the zero fill before it is
    dropped; a bias and relu epilogue runs inside the call as below). The
    same loop of a one-group
    `conv2d` with f32 weight [F, C, KH, KW] (`"conv2d_f32"`) becomes one
    call of `mixrt_ukernel_conv2d_f32`, which packs the patches block by
    block inside the call and writes the NCHW output directly (grouped:
    one call per image and group); the epilogue right after either
    kernel's loop, when it is `+ bias[f]`, relu
    (`arith.maximumf(x, +0)`) or both and nothing else, runs inside the
    call on each block while it is in cache (`MIXRT_UKERNEL_RELU`), and
    the call writes the epilogue's output (not overlapping the input). The
    loop of a one-group int8 `conv2d` (`qconv2d`, marked `"conv2d_s8"`:
    i8 weight [F, C, KH, KW], the input zero point, the weight's [1] or
    [F], i32 output) becomes one call of `mixrt_ukernel_conv2d_s8s8s32`
    (the input zero point loaded and passed by value; weight zero points
    that are all constant 0 passed as none), which packs the patches block
    by block and writes the exact i32 sums in NCHW for the rescale. When
    the rescale loop of `qconv2d` follows (per-filter weight scales
    constant, positive and finite; the bias constant and finite), with or
    without a relu after it
    or fused in it, and then optionally a per-tensor quantize with
    constant scale and zero point whose f32 input nothing else reads, the
    call is `mixrt_ukernel_conv2d_s8_rescale` instead: it runs that
    epilogue on each block of sums while in cache and writes the f32
    result, or the quantized int8 one (`MIXRT_UKERNEL_OUT_S8`), the next
    convolution's input; the loop, its epilogue loops and their calls stay
    behind it in an `scf.if`, run when the call returns another value than
    -1 (checks on: a rescaled value that is not finite, which they report
    as before) or -2 (checks off: refused). The call writes that output
    while it reads the input: they must not overlap (mix-plan-memory keeps
    the input live through the epilogue), nor the sums unless the output
    is f32 in their bytes, nor what the loops behind it read again (the
    weight, the zero points, the input scale) unless constant. The
    relu's and the quantize's time then count as the convolution's in a
    `mix-profile-layers` profile. The
    product of two f32 activations (`matmul`, marked `"matmul_f32"`: A
    [batch..., M, K] x B [batch..., K, N], static shapes, contiguous)
    becomes one such call per batch, as a 1x1 convolution of the 1 x N
    plane of B's K channels with A as the weight: the loop's chain (from
    +0, one fma per k ascending), nothing packed at compile time. So does
    a dense marked `"gemm_f32"` whose weight is not a constant (a weight
    passed as an input; weight-only int8's dequantized weight from 33
    rows of a rank-2 input), rank 2.

    The GEMMs of f32 `lstm` and `gru` layers (marked
    `"recurrent_gemm_f32"`: C [..., N] += A [..., K] x W^T, A's rows
    contiguous, C's rows contiguous or at a constant stride, W a static
    [N, K] view of a constant f32, f16 or bf16 global: the layer's weight,
    a direction's or some gates' rows of it) call `mixrt_ukernel_gemm_f32`
    with `MIXRT_UKERNEL_ACCUMULATE` on W^T packed at compile time: each
    output's chain continues from the value in C (the biases, the input
    GEMM's sum), one fma per k ascending, as the loop's. The views of the
    weight go with the loop, and the weight with its last reader.

    Weight-only int8: a `"gemm_f32"` weight that `mix-pack-dequantized-weights`
    folded (an f32 global naming the int8 weight packed with its scales and
    zero points) is not packed again: the call reads the packed int8 form
    (`mixrt_ukernel_gemm_f32` dequantizes in registers, the same bits) and
    the f32 global goes; if the call is not made, the loops read the f32
    global and the packed form goes.

    A checked f32 -> f16/bf16 cast (marked `"checked_narrow"`) runs its
    checked loop only when `mixrt_ukernel_range_f32` finds a value at or
    beyond the overflow threshold (f16 65520, bf16 0x7F7F8000) or a NaN,
    and a copy without the check otherwise (vectorized): the same outputs
    and reports.

    An int8 depthwise convolution -- the loop converting its int8 input to
    f32 (`(f32)(x - zp)`) right before a `"depthwise_f32"` loop that alone
    reads it, then the rescale (f32 sums; constant positive weight
    scales, the input scale loaded at run time, a constant finite bias) and a relu after it or in it -- becomes one call
    of `mixrt_ukernel_depthwise_s8_rescale` on the int8 input, which runs
    the conversion, the f32 depthwise kernel, the rescale, bias and relu
    per chunk of planes while in cache and writes the last output; the
    loops stay behind it in an `scf.if` as for the convolutions (the
    depthwise loop there calls `mixrt_ukernel_depthwise_f32`), run when it
    returns another value than -1 (checked) or -2 (unchecked). Its output
    must not overlap the int8 input nor what the loops read again (the
    weight, the zero point, the input scale) unless constant; planes the kernel always
    refuses (more than 8192 elements whose window rows do not fit 8192
    floats) keep the loops.

    The microkernels compute what the loops did, bit for bit (each output
    from +0 in ascending k with one FMA per step; exact int32 sums; see
    mixrt/ukernel.h). Everything else keeps its loops. With
    `enabled=false` the pass only removes the marks.

    ```mlir
    linalg.fill ins(%zero : f32) outs(%acc : memref<8x64xf32>)
    linalg.generic {mix.ukernel = "gemm_f32", ...}
        ins(%x, %w : memref<8x32xf32>, memref<32x64xf32>) outs(%acc : ...)
    // becomes
    %0 = call @mixrt_ukernel_gemm_f32(%c8, %c64, %c32, %x_ptr, %c32, %w_packed_ptr,
        %acc_ptr, %c64, %null, %c0_i32) : (...) -> i32
    ```
  }];
  let options = [
    Option<"enabled", "enabled", "bool", /*default=*/"true",
           "Call the microkernels (false: keep every loop)">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::math::MathDialect"
  ];
  let statistics = [
    Statistic<"numFloat", "float-gemms", "f32 GEMMs calling the microkernel">,
    Statistic<"numInt8", "int8-gemms", "int8 GEMMs calling the microkernel">,
    Statistic<"numFusedBias", "fused-biases", "Bias epilogues fused into the call">,
    Statistic<"numFusedRescale", "fused-rescales", "int8 rescale epilogues fused into the call">,
    Statistic<"numFusedRelu", "fused-relus", "Relus computed in the call or int8 rescale loop before them">,
    Statistic<"numRange", "ranges", "Dynamic quantization ranges computed by the microkernel">,
    Statistic<"numQuantize", "quantizes", "f32 quantizes calling the microkernel">,
    Statistic<"numGuarded", "guarded-checks", "Checked loops run only when a check can fail">,
    Statistic<"numDepthwise", "depthwise", "Depthwise convolutions calling the microkernel">,
    Statistic<"numConv", "conv2d", "One-group f32 convolutions calling mixrt_ukernel_conv2d_f32">,
    Statistic<"numGroupedConv", "grouped-conv2d", "Grouped f32 convolutions (and int8 ones on the f32 kernels) calling mixrt_ukernel_conv2d_grouped_f32">,
    Statistic<"numConvS8", "int8-conv2d", "One-group int8 convolutions calling mixrt_ukernel_conv2d_s8s8s32">,
    Statistic<"numFusedConvEpilogue", "fused-conv-epilogues", "Bias and relu epilogues fused into mixrt_ukernel_conv2d_f32">,
    Statistic<"numFusedConvS8Rescale", "fused-int8-conv2d-rescales", "int8 rescales (with their bias and relu) fused into mixrt_ukernel_conv2d_s8_rescale">,
    Statistic<"numFusedConvS8Quantize", "fused-int8-conv2d-quantizes", "Static quantizes fused into mixrt_ukernel_conv2d_s8_rescale after the rescale">,
    Statistic<"numFusedDepthwiseS8", "fused-int8-depthwise", "int8 depthwise convolutions (their input's conversion, rescale, bias and relu) run by mixrt_ukernel_depthwise_s8_rescale">,
    Statistic<"numMatmul", "matmuls", "f32 products of two activations calling mixrt_ukernel_conv2d_f32">,
    Statistic<"numDequantized", "dequantized-weights", "Weight-only int8 dense weights packed in int8 and dequantized in the call">,
    Statistic<"numRecurrent", "recurrent-gemms", "lstm and gru GEMMs (input and per step) calling the f32 microkernel with accumulation">,
  ];
}

def MixOrderConstantsPass : Pass<"mix-order-constants", "mlir::ModuleOp"> {
  let summary = "Name and order bufferization's constant globals by first use";
  let description = [{
    Runs in the LLVM phase right after bufferization. One-shot
    bufferization turns every constant tensor into a private global named
    `__constant_<shape>` with a number to make it unique (`_0`, `_1`, ...);
    with several functions in a module (several networks, a training
    step's forward and gradient networks) the numbers and the globals'
    order depend on the order in which it visits them, which changes from
    run to run: the same model compiled twice gave different objects. This
    pass renames them `<base>`, `<base>_1`, ... per base name and moves
    them to the top of the module, both in the order of their first use
    (`memref.get_global`) in the module's operations; unused ones follow in
    their order. Other globals are left alone.

    ```mlir
    memref.global "private" constant @__constant_2xf32_4 : memref<2xf32> = dense<1.0>
    memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<2.0>
    func.func @a() { %0 = memref.get_global @__constant_2xf32_4 ... }
    func.func @b() { %0 = memref.get_global @__constant_2xf32 ... }
    // becomes
    memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<1.0>
    memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<2.0>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def MixDistinctResultsPass
    : Pass<"mix-distinct-results", "mlir::ModuleOp"> {
  let summary = "Give every buffer a function returns its own buffer";
  let description = [{
    Runs in the LLVM phase right before `buffer-results-to-out-params`. In
    every function with a body, a buffer returned a second (third, ...) time is
    replaced there by a copy into a new buffer of its own (`memref.alloc`
    plus `memref.copy`), which `buffer-results-to-out-params` then turns into
    the caller's out-parameter, so the copy writes straight into it.

    Why: each result of a network is its own C out-parameter. A network
    may return one value twice (`mix.return %r, %r`), or two values that
    canonicalization makes one (`%f = mix.flatten %r` of a shape it already
    has, a reshape away and back). Upstream's `hoist-static-allocs` replaced
    the returned allocation by the first out-parameter and erased it, so the
    second result used a deleted operation: the compiler crashed with
    SIGSEGV.

    ```mlir
    return %r, %r : memref<1x2xf32>, memref<1x2xf32>
    // becomes
    %c = memref.alloc() : memref<1x2xf32>
    memref.copy %r, %c : memref<1x2xf32> to memref<1x2xf32>
    return %r, %c : memref<1x2xf32>, memref<1x2xf32>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numCopied", "copied", "Repeated results given a buffer of their own">,
  ];
}

def MixOutlineLayersPass : Pass<"mix-outline-layers", "mlir::ModuleOp"> {
  let summary = "One function per layer, shared by identical layers";
  let description = [{
    Runs after `mix-plan-memory` on every planned network function
    (`@mixc_net_NAME`). Each run of top-level operations that come from one
    layer (the same location) and compute something (ops with regions:
    `linalg`, `scf`) moves into a private function `@mixc_layer_N`; the
    network calls it. Its arguments are the values the run uses from outside
    (workspace views, weights, inputs, outputs, check strings), scalar
    constants are copied in. Two layers whose functions would be identical
    (same ops, types and attributes: the same kind of layer on the same
    shapes and precisions) share one function, which cuts code size.

    The point is compile time: LLVM's cost grows faster than linearly in the
    size of a function, and a network used to be one function of every layer
    inlined. The layer functions are marked `no_inline` at the end of the
    phase (`mix-export-network-symbols`), so LLVM sees many small functions.

    ```mlir
    linalg.generic ... ins(%view : memref<4xf32>) outs(%view_1 : memref<4xf32>) { ... }
    // becomes
    call @mixc_layer_0(%view, %view_1) : (memref<4xf32>, memref<4xf32>) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numLayers", "layers", "Number of layers outlined">,
    Statistic<"numFunctions", "functions", "Number of layer functions created">,
  ];
}

def MixProfileLayersPass : Pass<"mix-profile-layers", "mlir::ModuleOp"> {
  let summary = "Time every layer of the planned networks (mix-bench --profile)";
  let description = [{
    Runs after `mix-outline-layers` when the pipeline option
    `profile-layers` is set (`mix-bench --profile` sets it; `mixc` never
    does). In every planned network function it brackets each run of
    top-level operations from one source position (one layer: its outlined
    function, its microkernel calls, its quantize) by
    `mixc_profile_begin(where)` and `mixc_profile_end(where)`, where `where`
    is the NUL-terminated string "file:line:col" of the layer, followed by
    " (name)" when its location has a name (an imported ONNX node's). Operations
    that only name a value (constants, views, globals) neither start nor end
    a layer. The two functions are not part of mixrt: the process that runs
    the code provides them (mix-bench's are in compiler/LayerProfile.h).

    ```mlir
    call @mixc_layer_0(%view, %view_1) : (memref<4xf32>, memref<4xf32>) -> ()
    // becomes
    call @mixc_profile_begin(%where) : (!llvm.ptr) -> ()
    call @mixc_layer_0(%view, %view_1) : (memref<4xf32>, memref<4xf32>) -> ()
    call @mixc_profile_end(%where) : (!llvm.ptr) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numLayers", "layers", "Number of layers timed">,
  ];
}

def MixExportNetworkSymbolsPass
    : Pass<"mix-export-network-symbols", "mlir::ModuleOp"> {
  let summary = "Give each network's C interface its public name";
  let description = [{
    The last step of the LLVM phase: renames the C interface
    `@_mlir_ciface_mixc_alloc_NAME` that `convert-func-to-llvm` made for the
    convenience function of `mix-plan-memory` to `@_mlir_ciface_NAME`, the
    symbol the generated header declares. The `_mlir_ciface_` prefix keeps
    it apart from every C library and mixrt symbol. The planned function
    keeps its C interface `_mlir_ciface_mixc_net_NAME` (inputs, outputs,
    workspace), which no network name can produce either (`mixc_` is
    reserved). The layer functions of `mix-outline-layers` become
    `no_inline`.
  }];
}

def MixWidenNarrowFloatsPass
    : Pass<"mix-widen-narrow-floats", "mlir::ModuleOp"> {
  let summary = "Compute f16 and bf16 arithmetic in f32, one rounding per op";
  let description = [{
    Runs in the LLVM phase after the loops are built. Every scalar `arith`
    or `math` operation that computes on `f16` or `bf16` values becomes the
    same operation on `f32` operands (exact `arith.extf`), followed by one
    conversion of the result with mixc's rounding (`arith.truncf` to f16,
    mixc's integer RNE to bf16: NaN kept quiet with its sign and top payload
    bits, subnormals produced). Since f32 has more than twice the
    significand bits of either format plus two, one f32 operation rounded
    once to f16 or bf16 is the correctly rounded result of the operation in
    that format (add, sub, mul, div, rem, sqrt), so the values are those of
    the narrow operation.

    - `math.fma` keeps what LLVM did with it: f16 computes in f64, bf16 in
      f32, then one conversion;
    - `arith.negf`, `math.absf` and `math.copysign` are bit operations on
      the 16-bit pattern (IEEE's sign operations: a NaN keeps its payload);
    - `arith.cmpf` compares the exact f32 extensions;
    - `arith.fptosi`/`arith.fptoui` convert the exact f32 extension;
    - constants, `select`, `bitcast`, `extf`, `truncf` and conversions from
      integers are left alone.

    Why: LLVM has no bf16 arithmetic on most x86 CPUs and no f16 arithmetic
    without AVX512-FP16. It legalizes each narrow op by itself: a vector of
    bf16 ops is split into scalars, each rounded by a call to
    `__truncsfbf2` (which Debian 12's libgcc does not have) or, on
    AVX512-BF16 CPUs, by `vcvtneps2bf16`, which flushes subnormal results
    to zero; an f16 `exp` is vectorized and then split into one `expf` call
    per lane. Widening first gives LLVM plain f32 code.

    ```mlir
    %s = arith.addf %a, %b : bf16
    // becomes
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %b : bf16 to f32
    %2 = arith.addf %0, %1 : f32
    // ... integer RNE of %2 to the 16 bits of a bf16 ...
    %s = arith.bitcast %r : i16 to bf16
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
  let statistics = [
    Statistic<"numWidened", "widened", "Number of f16/bf16 operations computed in f32">,
  ];
}

def MixApproximateMathPass
    : Pass<"mix-approximate-math", "mlir::ModuleOp"> {
  let summary = "f32 erf, tanh and exp as vectorizable approximations, not libm calls";
  let description = [{
    Runs in the LLVM phase after `mix-widen-narrow-floats` (so f16 and bf16
    erf, tanh and exp, computed in f32, are covered too). Without it, each
    lowers to one call of libm's `erff`, `tanhf` or `expf` per element,
    which keeps LLVM from vectorizing the loop. With it, on 128 x 1024
    values (`mix-bench`, one thread): an exact `gelu` 615 -> 135 us, `tanh`
    2208 -> 108 us, `sigmoid` 367 -> 88 us, `exp` 324 -> 73 us, `softmax`
    619 -> 320 us.

    - `math.erf` becomes MLIR's rational approximation
      (`populatePolynomialApproximateErfPattern`: three intervals,
      `math.fma` and one division, exactly +-1 from |x| = 3.75), followed by
      `math.copysign` of the input (the approximation gives +0 for
      erf(-0)).
    - `math.tanh` becomes MLIR's rational approximation
      (`populatePolynomialApproximateTanhPattern`: x clamped to +-7.9988,
      where the approximation rounds to +-1, which the exact tanh does only
      from |x| = 9.01; x itself below |x| = 0.0004, so -0 stays -0).
    - `math.exp` becomes MLIR's Cephes-style approximation (x = n ln 2 + a,
      a degree-6 polynomial of a, times 2^n built in the exponent bits):
      x below about -87.68 gives +0 instead of a subnormal (between that and
      -87.34 the subnormal is produced), x > 88.72 gives +inf. A NaN x is
      selected through (the approximation converts x to an integer, which
      LLVM does not define for NaN).
    - On targets without a fused multiply-add instruction (x86-64 below
      `x86-64-v3`) every `math.fma` of these approximations would be a call
      of libm's `fmaf`, several times slower than libm's own functions:
      mixc runs this pass only for targets with one (`Target::
      hasFusedMultiplyAdd`, pipeline option `approximate-math`; `mixc -v`
      says "approximate math"), so elsewhere the f32 functions stay
      `erff`, `tanhf` and `expf` calls.

    Accuracy, measured against the f64 function over all 2^32 f32 inputs
    (compiled for x86-64-v3): erf at most 4.8 f32 ulps (at x = 1.8628),
    tanh 4.9 (at x = 5.126), exp 5.5 on normal results (at x = 88.72; a
    subnormal result is off by less than 2^-126 absolute), all within the
    tolerance mixc's math contract allows (2^-20 relative plus 2^-22
    absolute, 8 ulps; glibc's float functions: 1 ulp or less). NaN gives
    NaN; erf(+-inf) = +-1, tanh(+-inf) = +-1, exp(+inf) = +inf,
    exp(-inf) = +0; signed zeros keep their sign through erf and tanh.

    ```mlir
    %e = math.erf %x : f32
    // becomes
    %a = ... fma, divf, select ... : f32   // the approximation
    %e = math.copysign %a, %x : f32
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
  let statistics = [
    Statistic<"numApproximated", "approximated", "Number of f32 erf, tanh and exp operations approximated">,
  ];
}

#endif // MIX_PASSES_TD
