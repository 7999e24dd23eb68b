//===- MixOps.td - mix dialect operations ------------------*- tablegen -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIX_OPS_TD
#define MIX_OPS_TD

include "dialect/MixBase.td"
include "dialect/MixAttrs.td"
include "dialect/MixInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

class Mix_Op<string mnemonic, list<Trait> traits = []>
    : Op<Mix_Dialect, mnemonic, traits>;

// Activations: every dimension static, except that the leading one may be
// `?`, the dynamic batch (docs/dialect.md, "Dynamic batch"). Weights stay
// fully static. mix-specialize-batch makes the batch static before the
// lowering.
def Mix_HasStaticShapeExceptBatchPred : CPred<
  "[](::llvm::ArrayRef<int64_t> shape) { return shape.size() < 2 || "
  "::llvm::none_of(shape.drop_front(), ::mlir::ShapedType::isDynamic); }("
  "::llvm::cast<::mlir::ShapedType>($_self).getShape())">;
class Mix_BatchTensorOf<list<Type> allowedTypes>
  : RankedTensorOf<allowedTypes, [Mix_HasStaticShapeExceptBatchPred],
                   "tensor with static dimensions (the leading, batch "
                   "dimension may be `?`)">;
def Mix_FloatTensor : Mix_BatchTensorOf<[F16, BF16, F32, F64]>;
def Mix_IndexTensor : Mix_BatchTensorOf<[I32, I64]>;
def Mix_ScalarTensor : 0DTensorOf<[F16, BF16, F32, F64]>;

//===----------------------------------------------------------------------===//
// Structure: network, block, terminators, weights
//===----------------------------------------------------------------------===//

def Mix_NetworkOp : Mix_Op<"network", [
    IsolatedFromAbove, FunctionOpInterface, Symbol]> {
  let summary = "A network: a named function with a default precision";
  let description = [{
    The root of a model. Its `precision` is the default of every layer inside
    it that no block, layer or property override changes. Its inputs are the
    region's arguments; `mix.return` yields its outputs.

    ```mlir
    mix.network @mlp precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
      %w = mix.weight external "fc.weight" : tensor<8x2xf32>
      %y = mix.dense %x, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
      mix.return %y : tensor<4x2xf32>
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    Mix_PrecisionAttr:$precision,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs
  );
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
}

def Mix_BlockOp : Mix_Op<"block", [
    IsolatedFromAbove, RecursiveMemoryEffects]> {
  let summary = "A group of layers with an optional name and precision override";
  let description = [{
    A block groups layers and may override the precision it inherits from its
    parent (a network or another block). Blocks nest up to the input nesting limit (1000 levels of brackets). Values
    enter explicitly: each operand is bound to a region argument (the block
    is isolated from above), and `mix.yield` gives the block's results.

    ```mlir
    %r = mix.block @stage1 precision(f16) (%a = %x) : (tensor<1x8xf32>) -> tensor<1x8xf32> {
      %y = mix.relu %a : (tensor<1x8xf32>) -> tensor<1x8xf32>
      mix.yield %y : tensor<1x8xf32>
    }
    ```
  }];
  let arguments = (ins
    Variadic<AnyType>:$inputs,
    OptionalAttr<StrAttr>:$sym_name,
    OptionalAttr<Mix_PrecisionAttr>:$precision
  );
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// "@name" for named blocks, "<unnamed>" otherwise.
    std::string getDisplayName();
  }];
}

def Mix_YieldOp : Mix_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"BlockOp">]> {
  let summary = "Returns the results of a block";
  let description = [{
    ```mlir
    mix.yield %y, %z : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Mix_ReturnOp : Mix_Op<"return", [
    Pure, Terminator, ReturnLike, HasParent<"NetworkOp">]> {
  let summary = "Returns the outputs of a network";
  let description = [{
    ```mlir
    mix.return %logits : tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

def Mix_WeightOp : Mix_Op<"weight", [Pure]> {
  let summary = "A weight tensor: inline data or a named external reference";
  let description = [{
    Weights are SSA values. Either the data is inline (a dense elements
    attribute of the result type), or the op names a tensor to be loaded from
    a weights file at compile time.

    Verified: exactly one of the two; inline data of the result type (a
    `dense_resource<KEY>` must have its blob in the file's
    `dialect_resources` section); at most 16 GiB of data.

    ```mlir
    %b = mix.weight dense<[0.5, -1.0]> : tensor<2xf32>
    %w = mix.weight external "stage1.conv1.weight" : tensor<16x3x3x3xf32>
    ```
  }];
  let arguments = (ins
    OptionalAttr<ElementsAttr>:$value,
    OptionalAttr<StrAttr>:$ref
  );
  let results = (outs AnyStaticShapeTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

// The element types mix.cast converts from: floats, and the integers of
// masks (i1), quantized and ONNX int8/uint8 data (i8), indices and ONNX
// int32/int64 tensors (i32, i64).
def Mix_CastSourceTensor
    : Mix_BatchTensorOf<[F16, BF16, F32, F64, I1, I8, I32, I64]>;

def Mix_CastOp : Mix_Op<"cast", [Pure, SameOperandsAndResultShape]> {
  let summary = "Converts a float or integer tensor to a floating-point type "
                "(one RNE rounding)";
  let description = [{
    Inserted by `mix-insert-casts` where a value produced at one precision is
    consumed at another, and by importers for ONNX's Cast. The result is a
    float tensor (f16, bf16, f32, f64); the input is a float tensor or a
    signless integer tensor (i1, i8, i32, i64).

    Float to float: narrowing rounds to nearest, ties to even, once (f64 to
    f16 never goes through f32); values beyond the target's range become
    +-inf, NaN stays NaN. Widening is exact.

    Integer to float: the exact integer value is rounded to nearest, ties to
    even, once. Integers are signed (two's complement), but `i1` is 0 or 1
    (true is 1, as ONNX's bool) and `unsigned` reads an `i8` as 0 .. 255
    (ONNX's uint8). Exact: i1 and i8 to every float type, i32 to f64.
    Inexact: i32 and i64 to f32 above 2^24 in magnitude, i64 to f64 above
    2^53, i32/i64 to bf16 above 2^8; i32 and i64 to f16 above 2048, and
    magnitudes from 65520 up overflow to +-inf (the largest f16 is 65504).

    With `checked`, the compiled code reports a finite value (float or
    integer) that overflows to infinity as an error (with this op's
    location) instead of propagating it.

    Float to integer (ONNX's Cast to an integer type truncates toward zero)
    and integer to integer are not supported: the verifier rejects them.

    Casts to the same type fold away; `cast(cast(x))` folds to a single cast
    from `x` when the inner cast is exact for every input value (an exact
    float widening, or i1/i8 to any float, i32 to f64), never across an
    inexact integer-to-float step. A cast of an inline integer weight folds
    to an inline float weight (the same rounding; a checked cast that
    overflows is kept, to report at run time).

    ```mlir
    %h = mix.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
    %m = mix.cast %mask : tensor<2x8xi64> to tensor<2x8xf32>
    %p = mix.cast %pixels unsigned : tensor<1x3x4x4xi8> to tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Mix_CastSourceTensor:$input, UnitAttr:$is_unsigned,
                       UnitAttr:$checked);
  let results = (outs Mix_CastSourceTensor:$result);
  let assemblyFormat = [{
    $input (`unsigned` $is_unsigned^)? (`checked` $checked^)? attr-dict `:`
    type($input) `to` type($result)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
  let extraClassDeclaration = [{
    /// True when every value of type `from` is exactly representable in
    /// `to` (f16/bf16 -> f32/f64, f32 -> f64, i1/i8 -> any float, i32 ->
    /// f64, and identity).
    static bool isExactWidening(::mlir::Type from, ::mlir::Type to);
  }];
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

// The precision overrides every layer may carry, and the resolution record.
defvar Mix_LayerPrecisionArgs = (ins
  OptionalAttr<Mix_PrecisionAttr>:$precision,
  OptionalAttr<Mix_PrecisionAttr>:$weights_precision,
  OptionalAttr<Mix_PrecisionAttr>:$activations_precision,
  OptionalAttr<Mix_PrecisionAttr>:$accumulator_precision,
  OptionalAttr<Mix_PrecisionAttr>:$output_precision,
  OptionalAttr<Mix_ResolvedAttr>:$resolved
);

// A layer op. `weighted` layers implement getWeightOperands in C++.
class Mix_LayerOp<string mnemonic, list<Trait> traits = [], bit weighted = 0>
    : Mix_Op<mnemonic, !listconcat([Pure,
        !if(weighted,
            DeclareOpInterfaceMethods<Mix_LayerOpInterface, ["getWeightOperands"]>,
            Mix_LayerOpInterface)],
        !if(weighted, [Mix_HasWeights], []), traits)> {
  let assemblyFormat = [{
    operands `` custom<LayerPrecision>($precision, $weights_precision,
        $activations_precision, $accumulator_precision, $output_precision)
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Mix_DenseOp : Mix_LayerOp<"dense", [Mix_Int8Capable], 1> {
  let summary = "Fully connected layer: y = x W + b";
  let description = [{
    `input` is `[..., K]`, `weight` is `[K, N]` (input features by output
    features, so axis 1 is the output channel), the optional `bias` is
    `[N]`; the result is `[..., N]`.

    ```mlir
    %y = mix.dense %x, %w, %b precision(f16, accumulator = f32)
        : (tensor<8x64xf32>, tensor<64x10xf32>, tensor<10xf32>) -> tensor<8x10xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$weight,
                            Optional<Mix_FloatTensor>:$bias),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_MatmulOp : Mix_LayerOp<"matmul", [Mix_Int8Capable]> {
  let summary = "Batched matrix product of two activations";
  let description = [{
    `lhs` is `[..., M, K]`, `rhs` is `[..., K, N]` with equal batch
    dimensions; the result is `[..., M, N]`.

    ```mlir
    %c = mix.matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$lhs, Mix_FloatTensor:$rhs),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_Conv2DOp : Mix_LayerOp<"conv2d", [Mix_Int8Capable], 1> {
  let summary = "2-D convolution (NCHW input, FCHW weights)";
  let description = [{
    `input` is `[N, C, H, W]`, `weight` is `[F, C / groups, KH, KW]`, the
    optional `bias` is `[F]`. `strides` and `dilations` are `[h, w]`,
    `padding` is `[top, left, bottom, right]`. The result is
    `[N, F, OH, OW]` with
    `OH = (H + top + bottom - dilation_h * (KH - 1) - 1) / stride_h + 1`.

    ```mlir
    %y = mix.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$weight,
                            Optional<Mix_FloatTensor>:$bias,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                            DefaultValuedAttr<I64Attr, "1">:$groups),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_BatchNormOp : Mix_LayerOp<"batch_norm", [Mix_Normalization], 1> {
  let summary = "Batch normalization (inference form) over axis 1";
  let description = [{
    `y = scale * (x - mean) / sqrt(variance + epsilon) + bias` with the
    per-channel parameters (`[C]`) broadcast along axis 1 of `input`
    (`[N, C, ...]`).

    ```mlir
    %y = mix.batch_norm %x, %s, %b, %m, %v precision(f32)
        : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$scale,
                            Mix_FloatTensor:$bias, Mix_FloatTensor:$mean,
                            Mix_FloatTensor:$variance,
                            DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_LayerNormOp : Mix_LayerOp<"layer_norm", [Mix_Normalization, Mix_Reduction], 1> {
  let summary = "Layer normalization over the trailing dimensions";
  let description = [{
    Normalizes over the trailing dimensions `[axis, rank)` of `input`
    (`axis` negative: counted from the end; default -1, the last dimension
    only), then applies `gamma` and `beta`, whose shape is exactly those
    trailing dimensions (`[D]` for the default axis). Mean and biased
    variance are summed at accumulator precision. Normalizing over the
    dynamic batch (axis 0) is refused.

    ```mlir
    %y = mix.layer_norm %x, %g, %b precision(f32)
        : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
    %z = mix.layer_norm %x, %g2, %b2 {axis = 1 : i64}
        : (tensor<2x16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$gamma,
                            Mix_FloatTensor:$beta,
                            DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon,
                            DefaultValuedAttr<I64Attr, "-1">:$axis),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_SoftmaxOp : Mix_LayerOp<"softmax", [Mix_Reduction, Mix_UsesExp]> {
  let summary = "Softmax along an axis";
  let description = [{
    ```mlir
    %p = mix.softmax %x {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DefaultValuedAttr<I64Attr, "-1">:$axis),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

// Normalization over any axes (docs/precision.md, "Normalization and
// log_softmax").

def Mix_LogSoftmaxOp : Mix_LayerOp<"log_softmax",
    [Mix_Reduction, Mix_UsesExp, Mix_UsesLog]> {
  let summary = "Log of the softmax along an axis";
  let description = [{
    `y = (x - max) - log(sum(exp(x - max)))` along `axis` (negative: counted
    from the end): the max is exact, the rest is computed at accumulator
    precision and rounded once to the result.

    ```mlir
    %p = mix.log_softmax %x {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DefaultValuedAttr<I64Attr, "-1">:$axis),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_InstanceNormOp : Mix_LayerOp<"instance_norm",
    [Mix_Normalization, Mix_Reduction], 1> {
  let summary = "Instance normalization: per sample and channel";
  let description = [{
    For `input` `[N, C, D1, ...]` (rank 3 or more), normalizes each `[n, c]`
    slice over its spatial elements, then applies `scale` and `bias` (`[C]`):
    `y = scale[c] * (x - mean) / sqrt(variance + epsilon) + bias[c]`. Mean
    and biased variance are summed at accumulator precision.

    ```mlir
    %y = mix.instance_norm %x, %s, %b {epsilon = 1.0e-5 : f64}
        : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$scale,
                            Mix_FloatTensor:$bias,
                            DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_GroupNormOp : Mix_LayerOp<"group_norm",
    [Mix_Normalization, Mix_Reduction], 1> {
  let summary = "Group normalization: per sample and group of channels";
  let description = [{
    For `input` `[N, C, D1, ...]` (rank 2 or more), splits the `C` channels
    into `num_groups` consecutive groups (`num_groups` divides `C`),
    normalizes each `[n, group]` over its channels and spatial elements,
    then applies the per-channel `scale` and `bias` (`[C]`, as ONNX opset 21
    does). Mean and biased variance are summed at accumulator precision.

    ```mlir
    %y = mix.group_norm %x, %s, %b {num_groups = 4 : i64}
        : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$scale,
                            Mix_FloatTensor:$bias, I64Attr:$num_groups,
                            DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_ReluOp : Mix_LayerOp<"relu"> {
  let summary = "Rectified linear unit";
  let description = [{
    ```mlir
    %y = mix.relu %x : (tensor<4x10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input), Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_GeluOp : Mix_LayerOp<"gelu"> {
  let summary = "Gaussian error linear unit (exact erf form or tanh approximation)";
  let description = [{
    ```mlir
    %y = mix.gelu %x {approximate = true} : (tensor<4x10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DefaultValuedAttr<BoolAttr, "false">:$approximate),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_AddOp : Mix_LayerOp<"add"> {
  let summary = "Elementwise sum with numpy-style broadcasting";
  let description = [{
    ```mlir
    %y = mix.add %a, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$lhs, Mix_FloatTensor:$rhs),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_MulOp : Mix_LayerOp<"mul"> {
  let summary = "Elementwise product with numpy-style broadcasting";
  let description = [{
    ```mlir
    %y = mix.mul %a, %b : (tensor<4x10xf32>, tensor<4x1xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$lhs, Mix_FloatTensor:$rhs),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Elementwise math
//===----------------------------------------------------------------------===//

// An elementwise function of one tensor; the result has the input's shape.
// `formula` is the function of `x` (docs), `attrs` its attributes.
class Mix_UnaryOp<string mnemonic, string formula, list<Trait> traits = [],
                  dag attrs = (ins), string attrExample = "">
    : Mix_LayerOp<mnemonic, traits> {
  let summary = "Elementwise " # formula;
  let description = !strconcat([{
    Computes }], formula, [{ for every element, at the layer's activations
    precision (docs/precision.md, "Elementwise math").

    ```mlir
    %y = mix.}], mnemonic, [{ %x}], attrExample,
    [{ : (tensor<4x10xf32>) -> tensor<4x10xf32>
    ```
  }]);
  let arguments = !con((ins Mix_FloatTensor:$input), attrs,
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_SigmoidOp : Mix_UnaryOp<"sigmoid", "1 / (1 + exp(-x))", [Mix_UsesExp]>;
def Mix_TanhOp : Mix_UnaryOp<"tanh", "tanh(x)">;
def Mix_HardSigmoidOp : Mix_UnaryOp<"hard_sigmoid",
    "max(0, min(1, alpha * x + beta))", [],
    (ins DefaultValuedAttr<F64Attr, "0.2">:$alpha,
         DefaultValuedAttr<F64Attr, "0.5">:$beta),
    " {alpha = 0.2 : f64, beta = 0.5 : f64}">;
def Mix_HardSwishOp : Mix_UnaryOp<"hard_swish",
    "x * max(0, min(1, x / 6 + 1 / 2))">;
def Mix_SiluOp : Mix_UnaryOp<"silu", "x * sigmoid(x) (swish)", [Mix_UsesExp]>;
def Mix_LeakyReluOp : Mix_UnaryOp<"leaky_relu",
    "x if x >= 0, else alpha * x", [],
    (ins DefaultValuedAttr<F64Attr, "0.01">:$alpha),
    " {alpha = 0.1 : f64}">;
def Mix_EluOp : Mix_UnaryOp<"elu", "x if x > 0, else alpha * (exp(x) - 1)",
    [Mix_UsesExp], (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha),
    " {alpha = 1.0 : f64}">;
def Mix_ClipOp : Mix_UnaryOp<"clip", "min(max(x, min), max) (relu6: min 0, max 6)",
    [], (ins DefaultValuedAttr<F64Attr, "-std::numeric_limits<double>::infinity()">:$min,
             DefaultValuedAttr<F64Attr, "std::numeric_limits<double>::infinity()">:$max),
    " {min = 0.0 : f64, max = 6.0 : f64}">;
def Mix_ExpOp : Mix_UnaryOp<"exp", "exp(x)", [Mix_UsesExp]>;
def Mix_LogOp : Mix_UnaryOp<"log", "log(x) (natural logarithm)", [Mix_UsesLog]>;
def Mix_SqrtOp : Mix_UnaryOp<"sqrt", "sqrt(x)">;
def Mix_RsqrtOp : Mix_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def Mix_AbsOp : Mix_UnaryOp<"abs", "|x|">;
def Mix_NegOp : Mix_UnaryOp<"neg", "-x">;
def Mix_ErfOp : Mix_UnaryOp<"erf", "erf(x)">;
def Mix_ReciprocalOp : Mix_UnaryOp<"reciprocal", "1 / x">;
def Mix_FloorOp : Mix_UnaryOp<"floor", "floor(x) (rounds toward -inf)">;
def Mix_CeilOp : Mix_UnaryOp<"ceil", "ceil(x) (rounds toward +inf)">;
def Mix_RoundOp : Mix_UnaryOp<"round",
    "round(x) (to the nearest integer, ties to even, as ONNX Round)">;
def Mix_SignOp : Mix_UnaryOp<"sign", "sign(x) (-1, 0 or 1; NaN stays NaN)">;
def Mix_SinOp : Mix_UnaryOp<"sin", "sin(x)">;
def Mix_CosOp : Mix_UnaryOp<"cos", "cos(x)">;
def Mix_TanOp : Mix_UnaryOp<"tan", "tan(x)">;
def Mix_AsinOp : Mix_UnaryOp<"asin", "asin(x) (NaN outside [-1, 1])">;
def Mix_AcosOp : Mix_UnaryOp<"acos", "acos(x) (NaN outside [-1, 1])">;
def Mix_AtanOp : Mix_UnaryOp<"atan", "atan(x)">;
def Mix_SinhOp : Mix_UnaryOp<"sinh", "sinh(x)", [Mix_UsesExp]>;
def Mix_CoshOp : Mix_UnaryOp<"cosh", "cosh(x)", [Mix_UsesExp]>;
def Mix_AsinhOp : Mix_UnaryOp<"asinh", "asinh(x)", [Mix_UsesLog]>;
def Mix_AcoshOp : Mix_UnaryOp<"acosh", "acosh(x) (NaN below 1)", [Mix_UsesLog]>;
def Mix_AtanhOp : Mix_UnaryOp<"atanh", "atanh(x) (NaN outside [-1, 1])",
    [Mix_UsesLog]>;

// An elementwise function of two tensors with numpy-style broadcasting.
class Mix_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Mix_LayerOp<mnemonic, traits> {
  let summary = "Elementwise " # formula # " with numpy-style broadcasting";
  let description = !strconcat([{
    Computes }], formula, [{ for every element of the broadcast shape, at
    the layer's activations precision (docs/precision.md, "Elementwise
    math").

    ```mlir
    %y = mix.}], mnemonic, [{ %a, %b : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
    ```
  }]);
  let arguments = !con((ins Mix_FloatTensor:$lhs, Mix_FloatTensor:$rhs),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_SubOp : Mix_BinaryOp<"sub", "lhs - rhs">;
def Mix_DivOp : Mix_BinaryOp<"div", "lhs / rhs">;
def Mix_PowOp : Mix_BinaryOp<"pow", "pow(lhs, rhs)", [Mix_UsesPow]>;
def Mix_MaximumOp : Mix_BinaryOp<"maximum", "max(lhs, rhs) (NaN if either is NaN)">;
def Mix_MinimumOp : Mix_BinaryOp<"minimum", "min(lhs, rhs) (NaN if either is NaN)">;

//===----------------------------------------------------------------------===//
// Gating (docs/precision.md, "Gating and recurrence")
//===----------------------------------------------------------------------===//

def Mix_GluOp : Mix_LayerOp<"glu", [Mix_UsesExp]> {
  let summary = "Gated linear unit: a * sigmoid(b) over the two halves of an axis";
  let description = [{
    Splits `input` along `axis` (negative: counted from the end; default -1,
    the last dimension), whose size must be even, into its first half `a`
    and its second half `b`, and computes `a * sigmoid(b)` elementwise
    (PyTorch's `torch.nn.functional.glu`). The result has the input's shape
    with that dimension halved. Like the elementwise math layers, each
    element is evaluated in f32 (f64 for an f64 layer) and rounded once to
    the result. The axis cannot be the dynamic batch. ONNX has no GLU
    operator; exporters write it as Split, Sigmoid and Mul.

    ```mlir
    %y = mix.glu %x : (tensor<4x16xf32>) -> tensor<4x8xf32>
    %z = mix.glu %x3 precision(f16) {axis = 1 : i64}
        : (tensor<2x6x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DefaultValuedAttr<I64Attr, "-1">:$axis),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

// The gates' exp and tanh are evaluated at accumulator precision (never a
// reduced format: rule accumulator-precision), so lstm is not Mix_UsesExp.
def Mix_LstmOp : Mix_LayerOp<"lstm",
    [Mix_Int8Capable, AttrSizedOperandSegments], 1> {
  let summary = "Long short-term memory layer (ONNX LSTM semantics)";
  let description = [{
    Runs an LSTM over the sequence `input`, as ONNX's `LSTM` (opset 14)
    with its default activations (sigmoid for the gates, tanh for the cell
    candidate and the output) and without peepholes, clip or
    `input_forget`. With `D` directions (2 for `direction =
    "bidirectional"`, else 1), `S` time steps, batch `B`, input size `I` and
    hidden size `H`:

    - `layout = 0` (time first): `input` `[S, B, I]`, `initial_h` and
      `initial_c` `[D, B, H]`; results `y` `[S, D, B, H]`, `y_h` and `y_c`
      `[D, B, H]`;
    - `layout = 1` (batch first): `input` `[B, S, I]`, `initial_h` and
      `initial_c` `[B, D, H]`; results `y` `[B, S, D, H]`, `y_h` and `y_c`
      `[B, D, H]`;
    - `w` is `[D, 4H, I]`, `r` is `[D, 4H, H]` and the optional `b` is
      `[D, 8H]` (the input biases, then the recurrent ones), gates in ONNX's
      order i, o, f, c; missing initial states are 0.

    Per step t (descending for `direction = "reverse"` and for the second
    direction of a bidirectional layer):

    ```
    g = x_t W^T + h_{t-1} R^T + Wb + Rb        (accumulator precision)
    i = sigmoid(g_i), o = sigmoid(g_o), f = sigmoid(g_f), c' = tanh(g_c)
    c_t = f * c_{t-1} + i * c'                 (rounded to the state precision)
    h_t = o * tanh(c_t)                        (rounded to the state precision)
    ```

    `input` is at the activations precision, `w`, `r` and `b` at the
    weights precision; the GEMMs and gates are computed at the accumulator
    precision; `h` and `c` are carried at the **state** precision
    (`state_precision`, f32 when absent, whatever the layer's precision);
    the results are rounded once to the output precision. No dimension may
    be dynamic.

    In **int8** (weights and activations), `mix-quantize` unrolls the layer
    over its time steps: the input GEMM of all steps and each step's
    recurrent GEMM are `mix.qdense` ops (exact i32 sums, weights quantized
    per output channel (gate row), `input` with its calibrated or dynamic
    scale, each step's `h_{t-1}` with a dynamic per-tensor scale, the
    biases added in f32 after the rescale); gates and state update run in
    f32 (the state then rounded to the state precision).

    ```mlir
    %y, %yh, %yc = mix.lstm %x, %w, %r b(%b) precision(f16)
        : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, tensor<1x32xf32>)
        -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
    %z, %zh, %zc = mix.lstm %x1, %w2, %r2 initial_h(%h0) initial_c(%c0)
        {direction = "bidirectional", layout = 1 : i64,
         state_precision = #mix.precision<f32>}
        : (tensor<2x5x3xf32>, tensor<2x16x3xf32>, tensor<2x16x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
        -> (tensor<2x5x2x4xf32>, tensor<2x2x4xf32>, tensor<2x2x4xf32>)
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$w,
                            Mix_FloatTensor:$r,
                            Optional<Mix_FloatTensor>:$b,
                            Optional<Mix_FloatTensor>:$initial_h,
                            Optional<Mix_FloatTensor>:$initial_c,
                            DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
                            DefaultValuedAttr<I64Attr, "0">:$layout,
                            OptionalAttr<Mix_PrecisionAttr>:$state_precision),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$y, Mix_FloatTensor:$y_h,
                      Mix_FloatTensor:$y_c);
  let assemblyFormat = [{
    $input `,` $w `,` $r
    (`b` `(` $b^ `)`)? (`initial_h` `(` $initial_h^ `)`)?
    (`initial_c` `(` $initial_c^ `)`)? ``
    custom<LayerPrecision>($precision, $weights_precision,
        $activations_precision, $accumulator_precision, $output_precision)
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The number of directions: 2 when bidirectional, else 1.
    int64_t getNumDirections() {
      return getDirection() == "bidirectional" ? 2 : 1;
    }
    /// The hidden size H (the last dimension of `r`).
    int64_t getHiddenSize();
    /// The precision of the carried state: `state_precision`, or f32.
    ::mix::PrecisionAttr getStatePrecisionOrDefault();
  }];
}

def Mix_GruOp : Mix_LayerOp<"gru",
    [Mix_Int8Capable, AttrSizedOperandSegments], 1> {
  let summary = "Gated recurrent unit layer (ONNX GRU semantics)";
  let description = [{
    Runs a GRU over the sequence `input`, as ONNX's `GRU` (opset 14) with
    its default activations (sigmoid for the gates, tanh for the
    candidate), without clip. Shapes and attributes are those of
    `mix.lstm` with 3 gates instead of 4 and no cell state: `w` is
    `[D, 3H, I]`, `r` is `[D, 3H, H]`, the optional `b` is `[D, 6H]` (input
    biases, then recurrent ones), gates in ONNX's order z, r, h; results `y`
    and `y_h`. Per step t:

    ```
    z = sigmoid(x_t Wz^T + h_{t-1} Rz^T + Wbz + Rbz)
    r = sigmoid(x_t Wr^T + h_{t-1} Rr^T + Wbr + Rbr)
    h' = tanh(x_t Wh^T + (r * h_{t-1}) Rh^T + Rbh + Wbh)     linear_before_reset = 0
    h' = tanh(x_t Wh^T + Wbh + r * (h_{t-1} Rh^T + Rbh))     linear_before_reset = 1
    h_t = (1 - z) * h' + z * h_{t-1}          (rounded to the state precision)
    ```

    Precisions as for `mix.lstm`: the state `h` is carried at
    `state_precision` (f32 when absent); GEMMs and gates at accumulator
    precision. int8 as for `mix.lstm` (with `linear_before_reset = 0`, the
    candidate's GEMM reads `r * h_{t-1}` quantized per step).

    ```mlir
    %y, %yh = mix.gru %x, %w, %r b(%b) {linear_before_reset = 1 : i64}
        : (tensor<5x2x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, tensor<1x24xf32>)
        -> (tensor<5x1x2x4xf32>, tensor<1x2x4xf32>)
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$w,
                            Mix_FloatTensor:$r,
                            Optional<Mix_FloatTensor>:$b,
                            Optional<Mix_FloatTensor>:$initial_h,
                            DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
                            DefaultValuedAttr<I64Attr, "0">:$layout,
                            DefaultValuedAttr<I64Attr, "0">:$linear_before_reset,
                            OptionalAttr<Mix_PrecisionAttr>:$state_precision),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$y, Mix_FloatTensor:$y_h);
  let assemblyFormat = [{
    $input `,` $w `,` $r
    (`b` `(` $b^ `)`)? (`initial_h` `(` $initial_h^ `)`)? ``
    custom<LayerPrecision>($precision, $weights_precision,
        $activations_precision, $accumulator_precision, $output_precision)
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    int64_t getNumDirections() {
      return getDirection() == "bidirectional" ? 2 : 1;
    }
    int64_t getHiddenSize();
    ::mix::PrecisionAttr getStatePrecisionOrDefault();
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Mix_TransposeOp : Mix_LayerOp<"transpose"> {
  let summary = "Permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`. A dynamic batch
    must stay the leading dimension.

    ```mlir
    %y = mix.transpose %x {permutation = array<i64: 0, 2, 1>}
        : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DenseI64ArrayAttr:$permutation),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_ConcatOp : Mix_LayerOp<"concat"> {
  let summary = "Joins tensors along an axis";
  let description = [{
    The inputs have one rank and equal dimensions except along `axis`
    (negative: counted from the end); the result's `axis` dimension is their
    sum. A dynamic batch cannot be the axis.

    ```mlir
    %y = mix.concat %a, %b {axis = 1 : i64}
        : (tensor<1x8x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x24x4x4xf32>
    ```
  }];
  let arguments = !con((ins Variadic<Mix_FloatTensor>:$inputs, I64Attr:$axis),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_SliceOp : Mix_LayerOp<"slice"> {
  let summary = "Strided slice along some axes";
  let description = [{
    Along each axis `axes[i]`, keeps the elements `starts[i]`,
    `starts[i] + steps[i]`, ... while before `ends[i]` (after it for a
    negative step), as Python's `x[start:end:step]` with the bounds already
    clamped: `0 <= start < dim` when any element is kept, `-1 <= end <= dim`.
    Other axes are kept whole; the dynamic batch cannot be sliced.

    ```mlir
    %y = mix.slice %x {axes = array<i64: 1>, starts = array<i64: 1>,
                       ends = array<i64: 7>, steps = array<i64: 2>}
        : (tensor<2x8xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, DenseI64ArrayAttr:$axes,
                            DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$ends,
                            DenseI64ArrayAttr:$steps),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_PadOp : Mix_LayerOp<"pad"> {
  let summary = "Pads a tensor: constant, reflect or edge";
  let description = [{
    `pads` holds the elements added before each dimension, then after each
    (ONNX's order: `[b0, b1, ..., e0, e1, ...]`), all non-negative. `mode` is
    `constant` (the new elements are `value`), `reflect` (mirrored without
    the edge: each pad smaller than its dimension) or `edge` (the edge
    element repeated). The dynamic batch cannot be padded.

    ```mlir
    %y = mix.pad %x {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 2>, mode = "reflect"}
        : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x8xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, DenseI64ArrayAttr:$pads,
                            DefaultValuedAttr<StrAttr, "\"constant\"">:$mode,
                            DefaultValuedAttr<F64Attr, "0.0">:$value),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Reductions and pooling
//===----------------------------------------------------------------------===//

// A reduction over `axes` (all axes when empty); `keepdims` keeps them as 1.
class Mix_ReduceOp<string mnemonic, string formula, list<Trait> traits = []>
    : Mix_LayerOp<mnemonic, traits> {
  let summary = "Reduces over axes: " # formula;
  let description = !strconcat([{
    Computes }], formula, [{ over the dimensions `axes` (negative: counted
    from the end; none listed: all of them), in index order. With `keepdims`
    the reduced dimensions stay as 1, otherwise they are removed. The dynamic
    batch cannot be reduced.

    ```mlir
    %y = mix.}], mnemonic, [{ %x {axes = array<i64: 2, 3>, keepdims = true}
        : (tensor<1x16x8x8xf32>) -> tensor<1x16x1x1xf32>
    ```
  }]);
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                            DefaultValuedAttr<BoolAttr, "true">:$keepdims),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_ReduceSumOp : Mix_ReduceOp<"reduce_sum",
    "the sum (at accumulator precision)", [Mix_Reduction]>;
def Mix_ReduceMeanOp : Mix_ReduceOp<"reduce_mean",
    "the mean (the sum at accumulator precision, divided once)",
    [Mix_Reduction]>;
def Mix_ReduceProdOp : Mix_ReduceOp<"reduce_prod",
    "the product (at accumulator precision; 1 over no elements)",
    [Mix_Reduction]>;
def Mix_ReduceL2Op : Mix_ReduceOp<"reduce_l2",
    "sqrt of the sum of squares (at accumulator precision)", [Mix_Reduction]>;
def Mix_ReduceMaxOp : Mix_ReduceOp<"reduce_max",
    "the maximum (NaN if any element is NaN)">;
def Mix_ReduceMinOp : Mix_ReduceOp<"reduce_min",
    "the minimum (NaN if any element is NaN)">;

// The index of an extremum along one axis (ONNX ArgMax / ArgMin).
class Mix_ArgExtremumOp<string mnemonic, string which, string order>
    : Mix_LayerOp<mnemonic> {
  let summary = "The index of the " # which # " along an axis (i64)";
  let description = !strconcat([{
    The position along `axis` (negative: counted from the end) of the }],
    which, [{ of each slice, as an `i64` (ONNX's }], order, [{). The first
    such position, or with `select_last_index` the last one. A NaN counts as
    larger and smaller than every number, so a slice holding NaN gives the
    index of its first (last) NaN, as numpy's }], order, [{. With `keepdims`
    the axis stays as 1, otherwise it is removed. The values are compared at
    the layer's precision (after cast insertion, the operand's precision):
    exact, but two values that round to the same number tie there. The
    result has no precision of its own; the dynamic batch cannot be the axis.

    ```mlir
    %i = mix.}], mnemonic, [{ %x {axis = 1 : i64, keepdims = false}
        : (tensor<2x5x3xf32>) -> tensor<2x3xi64>
    ```
  }]);
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DefaultValuedAttr<I64Attr, "0">:$axis,
                            DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                            DefaultValuedAttr<BoolAttr, "false">:$select_last_index),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_BatchTensorOf<[I64]>:$result);
}

def Mix_ArgMaxOp : Mix_ArgExtremumOp<"argmax", "maximum", "ArgMax">;
def Mix_ArgMinOp : Mix_ArgExtremumOp<"argmin", "minimum", "ArgMin">;

def Mix_AvgPool2DOp : Mix_LayerOp<"avg_pool2d", [Mix_Reduction]> {
  let summary = "2-D average pooling (NCHW)";
  let description = [{
    `kernel` and `strides` are `[h, w]`, `padding` is
    `[top, left, bottom, right]`. Each window sums at accumulator precision
    and divides by the kernel size when `count_include_pad`, else by the
    number of its cells inside the input.

    ```mlir
    %y = mix.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                            padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DenseI64ArrayAttr:$kernel,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                            DefaultValuedAttr<BoolAttr, "false">:$count_include_pad),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_ConvTranspose2DOp : Mix_LayerOp<"conv_transpose2d", [], 1> {
  let summary = "2-D transposed convolution (NCHW input, CFHW weights)";
  let description = [{
    The gradient of `conv2d` with respect to its input, as ONNX's
    ConvTranspose: `input` is `[N, C, H, W]`, `weight` is
    `[C, F / groups, KH, KW]`, the optional `bias` is `[F]`. Input pixel
    `(i, j)` scatters `input * weight` to output
    `(i * stride - top + kh * dilation, j * stride - left + kw * dilation)`;
    `padding` (`[top, left, bottom, right]`) crops the full output and
    `output_padding` (`[h, w]`, smaller than the stride or the dilation)
    extends its bottom and right. The result is `[N, F, OH, OW]` with
    `OH = (H - 1) * stride_h - top - bottom + dilation_h * (KH - 1) + output_padding_h + 1`.
    Every output sums its contributions at accumulator precision in
    `(c, kh, kw)` order.

    ```mlir
    %y = mix.conv_transpose2d %x, %w {strides = array<i64: 2, 2>,
                                      padding = array<i64: 1, 1, 1, 1>,
                                      output_padding = array<i64: 1, 1>}
        : (tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$weight,
                            Optional<Mix_FloatTensor>:$bias,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$output_padding,
                            DefaultValuedAttr<I64Attr, "1">:$groups),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_ResizeOp : Mix_LayerOp<"resize"> {
  let summary = "Resizes the spatial dimensions of NCHW (nearest, bilinear or "
                "bicubic)";
  let description = [{
    Resizes `[N, C, H, W]` to `[N, C, OH, OW]` with `OH = floor(H * scales[0])`,
    as ONNX's Resize: each output coordinate `x` maps to an input coordinate
    by `coordinate_mode` (`half_pixel`: `(x + 0.5) / scale - 0.5`;
    `pytorch_half_pixel`: the same, 0 when the output size is 1;
    `asymmetric`: `x / scale`; `align_corners`: `x * (in - 1) / (in * scale - 1)`,
    ONNX's unfloored output length).
    `nearest` picks the input at that coordinate rounded by `nearest_mode`
    (`round_prefer_floor`, `round_prefer_ceil`, `floor`, `ceil`), clamped into
    the input; `linear` interpolates the two nearest rows and columns with
    the coordinate clamped into the input (bilinear), in the activations
    format; `cubic` interpolates the four rows and columns around the
    coordinate `c` (`floor(c) - 1 .. floor(c) + 2`, clamped into the input:
    ONNX's edge padding) with Keys' cubic kernel, `a = -0.75` (ONNX's
    `cubic_coeff_a` default and PyTorch's bicubic), along the columns first,
    then the rows, in the activations format. Coordinates and cubic weights
    are computed in f64, like ONNX's reference.

    ```mlir
    %y = mix.resize %x {mode = "linear", scales = array<f64: 2.0, 2.0>}
        : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
    %z = mix.resize %x {mode = "cubic", scales = array<f64: 2.0, 2.0>,
                        coordinate_mode = "align_corners"}
        : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DenseF64ArrayAttr:$scales,
                            DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                            DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_mode,
                            DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Gather and expand (issue 13)
//===----------------------------------------------------------------------===//

def Mix_GatherOp : Mix_LayerOp<"gather"> {
  let summary = "Selects slices of an activation by constant or run-time indices";
  let description = [{
    As ONNX's Gather: along `axis` (negative: counted from the end), the
    result holds the input slices at the indices, in the indices' shape. The
    result's shape is `input[:axis] + indices.shape + input[axis + 1:]`, so
    rank-0 indices remove the axis (`x[:, 0]`). The dynamic batch cannot be
    the axis.

    The indices are either the constant `indices` attribute, each in
    `[0, input[axis])` (the importer normalizes ONNX's negative indices), or
    a second operand computed at run time (i32 or i64, of a static shape).
    A run-time index in `[-input[axis], 0)` counts from the end, as ONNX's;
    one outside `[-input[axis], input[axis])` is an error of the reference
    interpreter, and compiled code clamps it into the axis (it never reads
    outside the input), as `mix.embedding` does.

    ```mlir
    %cls = mix.gather %x {axis = 1 : i64, indices = dense<0> : tensor<i64>}
        : (tensor<2x16x64xf32>) -> tensor<2x64xf32>
    %y = mix.gather %x {axis = 1 : i64, indices = dense<[3, 0]> : tensor<2xi64>}
        : (tensor<2x16x64xf32>) -> tensor<2x2x64xf32>
    %z = mix.gather %x, %ids {axis = 1 : i64}
        : (tensor<2x16x64xf32>, tensor<3xi64>) -> tensor<2x3x64xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            Optional<Mix_IndexTensor>:$runtime_indices,
                            I64Attr:$axis,
                            OptionalAttr<I64ElementsAttr>:$indices),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_ExpandOp : Mix_LayerOp<"expand"> {
  let summary = "Broadcasts a tensor to the result's shape (numpy rules)";
  let description = [{
    As ONNX's Expand: the input is aligned to the result's trailing
    dimensions, and each input dimension is the result's or 1 (repeated).
    The result's rank is at least the input's. A dynamic batch stays the
    leading dimension of both.

    ```mlir
    %y = mix.expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input), Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

//===----------------------------------------------------------------------===//
// Compare and where: attention masks (issue 13)
//===----------------------------------------------------------------------===//

def Mix_MaskTensor : Mix_BatchTensorOf<[I1]>;

// mix.compare's operands: floats, or integers (both of one integer type).
def Mix_CompareOperandTensor
    : Mix_BatchTensorOf<[F16, BF16, F32, F64, I8, I32, I64]>;

def Mix_CompareOp : Mix_LayerOp<"compare"> {
  let summary = "Elementwise comparison to an i1 mask (numpy broadcasting)";
  let description = [{
    Compares `lhs` with `rhs` for every element of the broadcast shape by
    `predicate`: `eq`, `ne`, `lt`, `le`, `gt` or `ge`, or one of the
    unordered forms `ult`, `ule`, `ugt`, `uge` ("less than, or unordered"
    ...). The operands are compared at the layer's precision (after cast
    insertion, the operands' precision): a comparison is exact at its
    operand precision. As IEEE, a NaN operand compares unequal and
    unordered: `eq`, `lt`, `le`, `gt` and `ge` give false, `ne` and the
    unordered forms true. So the negation of each predicate is a predicate:
    not `lt` is `uge`, not `le` is `ugt`, not `eq` is `ne`. The result is an
    `i1` mask: it has no precision of its own, and cannot be a network input
    or output.

    Integer operands (i8, i32 or i64; both of the same type) compare exactly
    as signed integers; the layer's precision does not apply to them (no
    cast is inserted). Integers have no unordered values, so each unordered
    form is its ordered one (`ult` is `lt`). An integer compares with a float
    only after a `mix.cast` of the integer.

    ```mlir
    %m = mix.compare %a, %b {predicate = "eq"}
        : (tensor<2x1x1x8xf32>, tensor<f32>) -> tensor<2x1x1x8xi1>
    %n = mix.compare %a, %b {predicate = "uge"}
        : (tensor<2x1x1x8xf32>, tensor<f32>) -> tensor<2x1x1x8xi1>
    %k = mix.compare %ids, %zero {predicate = "gt"}
        : (tensor<2x8xi64>, tensor<i64>) -> tensor<2x8xi1>
    ```
  }];
  let arguments = !con((ins Mix_CompareOperandTensor:$lhs,
                            Mix_CompareOperandTensor:$rhs, StrAttr:$predicate),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_MaskTensor:$result);
}

def Mix_LogicalOp : Mix_LayerOp<"logical"> {
  let summary = "Elementwise logic of i1 masks (numpy broadcasting)";
  let description = [{
    `kind` is `and`, `or` or `xor` of two masks (broadcast as numpy does),
    or `not` of one. Masks are exact: no precision is involved, and the
    layer's precisions (resolved like any layer's) convert nothing.

    ```mlir
    %m = mix.logical %causal, %padding {kind = "and"}
        : (tensor<1x1x8x8xi1>, tensor<2x1x1x8xi1>) -> tensor<2x1x8x8xi1>
    %n = mix.logical %m {kind = "not"} : (tensor<2x1x8x8xi1>) -> tensor<2x1x8x8xi1>
    ```
  }];
  let arguments = !con((ins Variadic<Mix_MaskTensor>:$masks, StrAttr:$kind),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_MaskTensor:$result);
}

def Mix_WhereOp : Mix_LayerOp<"where"> {
  let summary = "Elementwise selection by an i1 mask (numpy broadcasting)";
  let description = [{
    For every element of the broadcast shape of `condition`, `x` and `y`:
    `x` where the condition holds, else `y`, converted to the result's
    precision (the layer's output precision; no other rounding).

    ```mlir
    %y = mix.where %m, %ninf, %scores
        : (tensor<2x1x1x8xi1>, tensor<f32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    ```
  }];
  let arguments = !con((ins Mix_MaskTensor:$condition, Mix_FloatTensor:$x,
                            Mix_FloatTensor:$y),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_EmbeddingOp : Mix_LayerOp<"embedding", [], 1> {
  let summary = "Table lookup: rows of `table` selected by integer `indices`";
  let description = [{
    `indices` has any shape `S` (i32 or i64), `table` is `[V, D]`; the result
    is `S + [D]`.

    ```mlir
    %e = mix.embedding %ids, %table : (tensor<2x16xi32>, tensor<1000x64xf32>) -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = !con((ins Mix_IndexTensor:$indices, Mix_FloatTensor:$table),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_GlobalAvgPoolOp : Mix_LayerOp<"global_avg_pool", [Mix_Reduction]> {
  let summary = "Mean over the spatial dimensions: [N, C, H, W] -> [N, C]";
  let description = [{
    ```mlir
    %y = mix.global_avg_pool %x : (tensor<1x64x8x8xf32>) -> tensor<1x64xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input), Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_MaxPool2DOp : Mix_LayerOp<"max_pool2d"> {
  let summary = "2-D max pooling (NCHW)";
  let description = [{
    `kernel`, `strides` and `dilations` are `[h, w]`, `padding` is
    `[top, left, bottom, right]` (padded cells never win). A window spans
    `dilations * (kernel - 1) + 1` cells of the padded input; the output size
    is `floor((in + pads - span) / stride) + 1`, or with `ceil_mode` the
    ceiling, less one when the last window would start past the input and
    its leading padding (PyTorch's and ONNX's rule; cells of a window beyond
    the padded input never win either).

    ```mlir
    %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
    %z = mix.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                            dilations = array<i64: 1, 1>, ceil_mode = true}
        : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DenseI64ArrayAttr:$kernel,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_ReshapeOp : Mix_LayerOp<"reshape"> {
  let summary = "Reinterprets the shape (same number of elements, row-major)";
  let description = [{
    ```mlir
    %y = mix.reshape %x : (tensor<2x8xf32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input), Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_FlattenOp : Mix_LayerOp<"flatten"> {
  let summary = "Collapses the dimensions from `start_dim` on into one";
  let description = [{
    ```mlir
    %y = mix.flatten %x : (tensor<1x16x4x4xf32>) -> tensor<1x256xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input,
                            DefaultValuedAttr<I64Attr, "1">:$start_dim),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_AttentionOp : Mix_LayerOp<"attention",
    [Mix_Int8Capable, Mix_Reduction, AttrSizedOperandSegments], 1> {
  let summary = "Multi-head self-attention with q/k/v/output projections";
  let description = [{
    `input` is `[B, S, E]`; `wq`, `wk`, `wv`, `wo` are `[E, E]` projection
    weights (input by output features); `E` must be divisible by
    `num_heads` (`H`, heads of width `D = E / H`). The projections are GEMMs
    at weights/activations precision summed at accumulator precision;
    the optional biases `bq`, `bk`, `bv`, `bo` (each `[E]`, weights of the
    layer like `mix.dense`'s bias) are added to their projection's sum in the
    accumulator type, as `mix.dense` adds its bias. The scores
    `Q K^T / sqrt(D)`, the optional additive `mask`, their softmax over the
    keys and the weighted sum of values are computed at accumulator
    precision; the merged heads are rounded to the activations precision for
    the output projection.

    `mask` is a float tensor added to the scores `[B, H, S, S]` (queries by
    keys), of shape `[S, S]`, `[B, S, S]` (per sample, not numpy's
    alignment with `[H, S, S]`) or `[B, H, S, S]`, where any dimension may
    be 1 to broadcast: e.g. a causal or bias mask `[S, S]`, a padding mask
    `[B, 1, 1, S]`.
    It is converted to the accumulator type (so a large negative value such
    as -3.4e38 stays finite in an f16 layer) and added to the scaled scores
    before the softmax. With `causal = true` position i also attends to
    positions <= i only (the future scores are -inf whatever the mask says).
    A row whose scores are all -inf has no defined softmax (NaN).

    ```mlir
    %y = mix.attention %x, %wq, %wk, %wv, %wo {num_heads = 4 : i64}
        : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<2x16x64xf32>
    ```

    With biases, a padding mask per sample and an f16 layer:

    ```mlir
    %y = mix.attention %x, %wq, %wk, %wv, %wo bq(%bq) bk(%bk) bv(%bv) bo(%bo) mask(%m) precision(f16) {causal = true, num_heads = 2 : i64}
        : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x1x1x4xf32>) -> tensor<2x4x8xf32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$input, Mix_FloatTensor:$wq,
                            Mix_FloatTensor:$wk, Mix_FloatTensor:$wv,
                            Mix_FloatTensor:$wo,
                            Optional<Mix_FloatTensor>:$bq,
                            Optional<Mix_FloatTensor>:$bk,
                            Optional<Mix_FloatTensor>:$bv,
                            Optional<Mix_FloatTensor>:$bo,
                            Optional<Mix_FloatTensor>:$mask,
                            I64Attr:$num_heads,
                            DefaultValuedAttr<BoolAttr, "false">:$causal),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_FloatTensor:$result);
  // The optional operands are named, so that IR without them reads (and
  // parses) exactly as before.
  let assemblyFormat = [{
    $input `,` $wq `,` $wk `,` $wv `,` $wo
    (`bq` `(` $bq^ `)`)? (`bk` `(` $bk^ `)`)? (`bv` `(` $bv^ `)`)?
    (`bo` `(` $bo^ `)`)? (`mask` `(` $mask^ `)`)? ``
    custom<LayerPrecision>($precision, $weights_precision,
        $activations_precision, $accumulator_precision, $output_precision)
    attr-dict `:` functional-type(operands, results)
  }];
}

def Mix_CrossEntropyLossOp : Mix_LayerOp<"cross_entropy_loss",
    [Mix_Loss, Mix_Reduction, Mix_UsesExp]> {
  let summary = "Mean cross-entropy of logits [N, C] against integer labels [N]";
  let description = [{
    ```mlir
    %l = mix.cross_entropy_loss %logits, %labels : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$logits, Mix_IndexTensor:$labels),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_ScalarTensor:$result);
}

def Mix_MseLossOp : Mix_LayerOp<"mse_loss", [Mix_Loss, Mix_Reduction]> {
  let summary = "Mean squared error of two tensors of the same shape";
  let description = [{
    ```mlir
    %l = mix.mse_loss %pred, %target : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
    ```
  }];
  let arguments = !con((ins Mix_FloatTensor:$prediction, Mix_FloatTensor:$target),
                       Mix_LayerPrecisionArgs);
  let results = (outs Mix_ScalarTensor:$result);
}

//===----------------------------------------------------------------------===//
// Quantized arithmetic (produced by mix-quantize)
//===----------------------------------------------------------------------===//

def Mix_Int8Tensor : StaticShapeTensorOf<[I8]>;
def Mix_ScaleTensor : 0DTensorOf<[F32]>;
def Mix_ZeroPointTensor : 0DTensorOf<[I32]>;
// One value for the tensor (rank 0) or one per row (rank 1).
def Mix_RowScales : TensorRankOf<[F32], [0, 1]>;
def Mix_RowZeroPoints : TensorRankOf<[I32], [0, 1]>;
def Mix_ChannelScales : 1DTensorOf<[F32]>;
def Mix_ChannelZeroPoints : 1DTensorOf<[I32]>;

def Mix_QuantizeOp : Mix_Op<"quantize", [Pure]> {
  let summary = "Quantizes a tensor to int8 with one scale and zero point";
  let description = [{
    `q = saturate(round_half_even(x / scale) + zero_point)`: the quotient is
    computed in the input type (f16/bf16 inputs are first widened exactly to
    f32), rounded half to even, the zero point is added, and the result is
    clamped to the scheme's range (symmetric [-127, 127], asymmetric
    [-128, 127]) before it is narrowed to i8 - bit for bit what mixrt's
    `mixrt_quantize_f32` does.

    With `static(scale = s, zero_point = z)` the parameters are compile-time
    constants (from calibration). Without it they are computed from the data
    on every call exactly as mixrt computes them: symmetric
    `scale = max|x| / 127`, asymmetric `scale = (max' - min') / 255` with
    `min' = min(min x, 0)`, `max' = max(max x, 0)` and
    `zero_point = round_half_even(-128 - min' / scale)`, in f64, the scale
    rounded once to f32 (at least FLT_MIN; 1 for an all-zero tensor). The
    parameters used are also returned, for the rescale.

    With `axis(d)` (dynamic only) there is one scale and zero point per index
    along dimension `d`, computed from that slice as above (per-row
    quantization of a `[M, K]` activation with `axis(0)`); the parameter
    results are then `[size of d]` tensors.

    With `checked`, a non-finite input value is reported at run time with
    this op's location instead of being quantized.

    ```mlir
    %q, %s, %z = mix.quantize %x symmetric static(scale = 0.0125, zero_point = 0) checked
        : tensor<1x64xf32> -> tensor<1x64xi8>, tensor<f32>, tensor<i32>
    ```
  }];
  let arguments = (ins Mix_FloatTensor:$input,
                       Mix_QuantSchemeAttr:$scheme,
                       OptionalAttr<F32Attr>:$scale,
                       OptionalAttr<I32Attr>:$zero_point,
                       OptionalAttr<I64Attr>:$axis,
                       UnitAttr:$checked);
  let results = (outs Mix_Int8Tensor:$result, Mix_RowScales:$used_scale,
                      Mix_RowZeroPoints:$used_zero_point);
  let assemblyFormat = [{
    $input `` $scheme (`static` `(` `scale` `=` $scale^ `,` `zero_point` `=`
    $zero_point `)`)? (`axis` `(` $axis^ `)`)? (`checked` $checked^)?
    attr-dict `:` type($input) `->` type($result) `,` type($used_scale) `,`
    type($used_zero_point)
  }];
  let hasVerifier = 1;
}

def Mix_DequantizeOp : Mix_Op<"dequantize", [Pure]> {
  let summary = "Converts int8 values back to f32 with their scales and zero "
                "points (one rounding)";
  let description = [{
    `x = scale * (q - zero_point)` in f32: the difference is an exact
    integer (at most 255 in magnitude), converted to f32 exactly, and the
    product with the scale is rounded once, to nearest, ties to even - bit
    for bit what mixrt's `mixrt_dequantize_f32` computes. A product beyond
    f32 is +-inf (never for the weights mix-quantize dequantizes: their
    scales come from the weights' own finite range).

    `scales` and `zero_points` hold one value (per tensor), or, with
    `axis(d)`, one per index along dimension `d` of the input.

    `mix-quantize` creates it for weight-only int8 layers (a `dense`,
    `conv2d` or `attention` with `weights = int8` and float activations):
    the int8 weight,
    its scales and zero points are stored (a quarter of the f32 bytes), and
    the layer computes with the dequantized weight in its accumulator type.

    ```mlir
    %w = mix.dequantize %q, %scales, %zero_points axis(1)
        : (tensor<64x32xi8>, tensor<32xf32>, tensor<32xi32>) -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Mix_Int8Tensor:$input, Mix_ChannelScales:$scales,
                       Mix_ChannelZeroPoints:$zero_points,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs StaticShapeTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $input `,` $scales `,` $zero_points (`axis` `(` $axis^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Mix_AttentionCoreOp : Mix_Op<"attention_core", [Pure]> {
  let summary = "Multi-head scaled dot-product attention without projections";
  let description = [{
    What `mix.attention` computes between its projections, for int8
    attention after `mix-quantize` (whose projections become `mix.qdense`):
    `q`, `k`, `v` are `[B, S, E]` (heads are `E / num_heads` wide slices of
    the last dimension); per head, `softmax(Q K^T / sqrt(E / num_heads)) V`,
    computed in the operands' element type; heads merged back into
    `[B, S, E]`. The optional `mask` (shapes as `mix.attention`'s, any float
    type, converted to the operands' type) is added to the scaled scores
    before the softmax. With `causal = true` position i attends to
    positions <= i.

    ```mlir
    %c = mix.attention_core %q, %k, %v {num_heads = 4 : i64}
        : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Mix_FloatTensor:$q, Mix_FloatTensor:$k,
                       Mix_FloatTensor:$v, Optional<Mix_FloatTensor>:$mask,
                       I64Attr:$num_heads,
                       DefaultValuedAttr<BoolAttr, "false">:$causal);
  let results = (outs Mix_FloatTensor:$result);
  let assemblyFormat = [{
    operands attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

// Operands shared by the integer GEMM-like ops: an int8 activation with its
// scale and zero point.
class Mix_QuantizedLayerOp<string mnemonic> : Mix_Op<mnemonic, [Pure]> {
  let assemblyFormat = [{
    operands attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Mix_QDenseOp : Mix_QuantizedLayerOp<"qdense"> {
  let summary = "Integer fully connected layer with an f32 rescale";
  let description = [{
    `acc[..., n] = sum_k (x[..., k] - zx) * (w[k, n] - zw[n])` exactly in
    i32 (the int32 proof of `mix-check-int8-accumulation` guarantees it
    cannot wrap), then `y = (f32)((f64)sx * (f64)sw[n] * (f64)acc) + bias[n]`
    (the rescale of `mixrt_gemm_s8_f32`, then one f32 addition). Weight
    scales and zero points hold one value per output column, or one for the
    whole weight; the input's, one value, or one per row of a `[M, K]`
    input. With `k_chunk = c`, the sum is computed in i32 pieces of at
    most `c` products that are added exactly in f64 (split K).

    ```mlir
    %y = mix.qdense %xq, %xs, %xz, %wq, %ws, %wz, %b
        : (tensor<1x64xi8>, tensor<f32>, tensor<i32>, tensor<64x10xi8>,
           tensor<10xf32>, tensor<10xi32>, tensor<10xf32>) -> tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Mix_Int8Tensor:$input, Mix_RowScales:$input_scale,
                       Mix_RowZeroPoints:$input_zero_point,
                       Mix_Int8Tensor:$weight, Mix_ChannelScales:$weight_scales,
                       Mix_ChannelZeroPoints:$weight_zero_points,
                       Optional<Mix_FloatTensor>:$bias,
                       OptionalAttr<I64Attr>:$k_chunk);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_QMatmulOp : Mix_QuantizedLayerOp<"qmatmul"> {
  let summary = "Integer batched matrix product with an f32 rescale";
  let description = [{
    `acc[..., m, n] = sum_k (a[..., m, k] - za) * (b[..., k, n] - zb)` in i32,
    then `(f32)((f64)sa * (f64)sb * (f64)acc)`. The rhs is quantized per
    tensor, the lhs per tensor or, when it is `[M, K]`, per row. `k_chunk`
    splits K as in `mix.qdense`.

    ```mlir
    %c = mix.qmatmul %aq, %as, %az, %bq, %bs, %bz
        : (tensor<4x8xi8>, tensor<f32>, tensor<i32>, tensor<8x3xi8>,
           tensor<f32>, tensor<i32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Mix_Int8Tensor:$lhs, Mix_RowScales:$lhs_scale,
                       Mix_RowZeroPoints:$lhs_zero_point,
                       Mix_Int8Tensor:$rhs, Mix_ScaleTensor:$rhs_scale,
                       Mix_ZeroPointTensor:$rhs_zero_point,
                       OptionalAttr<I64Attr>:$k_chunk);
  let results = (outs Mix_FloatTensor:$result);
}

def Mix_QConv2DOp : Mix_QuantizedLayerOp<"qconv2d"> {
  let summary = "Integer 2-D convolution (NCHW, FCHW) with an f32 rescale";
  let description = [{
    The integer form of `mix.conv2d`: padding reads the input's zero point
    (so padded positions contribute exactly 0), products
    `(x - zx) * (w - zw[f])` are summed in i32 per output, and the sum is
    rescaled with `(f32)((f64)sx * (f64)sw[f] * (f64)acc)` before the f32
    bias. `k_chunk` (groups = 1 only) splits the input channels so that each
    i32 piece sums at most `k_chunk` products.

    ```mlir
    %y = mix.qconv2d %xq, %xs, %xz, %wq, %ws, %wz, %b {padding = array<i64: 1, 1, 1, 1>}
        : (tensor<1x1x8x8xi8>, tensor<f32>, tensor<i32>, tensor<4x1x3x3xi8>,
           tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Mix_Int8Tensor:$input, Mix_ScaleTensor:$input_scale,
                       Mix_ZeroPointTensor:$input_zero_point,
                       Mix_Int8Tensor:$weight, Mix_ChannelScales:$weight_scales,
                       Mix_ChannelZeroPoints:$weight_zero_points,
                       Optional<Mix_FloatTensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       OptionalAttr<I64Attr>:$k_chunk);
  let results = (outs Mix_FloatTensor:$result);
}

#endif // MIX_OPS_TD
