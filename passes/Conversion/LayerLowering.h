//===- LayerLowering.h - what the layer lowerings share ---------*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The common part of the layer patterns of the mix -> linalg lowering: the
// pattern base carrying the lowering's options, and LayerLoweringBase, which
// resolves a layer's types (the accumulator from the layer's resolution, or
// i32 for the integer GEMMs), builds the accumulator's init tensor and ends
// GEMMs and convolutions with the one bias epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_CONVERSION_LAYERLOWERING_H
#define MIXC_PASSES_CONVERSION_LAYERLOWERING_H

#include "passes/Conversion/MixToLinalgPatterns.h"
#include "passes/LinalgBuilders.h"

#include "dialect/MixInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#include <type_traits>

namespace mix::lowering {

/// The element type `layer` accumulates in, from its `resolved` attribute (or
/// resolved on the spot); an error at the layer if it is not a float type.
/// The one place the lowering reads a layer's resolution.
mlir::FailureOr<mlir::Type> accumulatorType(LayerOpInterface layer);

/// The types a layer lowering works with.
struct LayerTypes {
  /// The op's result type.
  mlir::ShapedType result;
  /// The element type sums accumulate in (a float type, or i32).
  mlir::Type acc;

  /// The result's element type.
  mlir::Type out() const { return result.getElementType(); }
};

/// The accumulator tensor of a layer: the result's shape in the accumulator
/// type, filled with 0.
mlir::Value buildInit(mlir::OpBuilder &b, mlir::Location loc,
                      const LayerTypes &types);

/// The map reading a per-channel operand (a scale, a zero point, a bias:
/// rank 0, or [C] / [1] indexed by result dimension `channelDim`) in an
/// iteration space of `result`'s shape.
mlir::AffineMap channelMap(mlir::Value operand, mlir::ShapedType result,
                           int64_t channelDim);

/// How an accumulator becomes a GEMM's or a convolution's result; the one
/// epilogue of float and integer layers:
///
///   out = convert(pre(acc, extras...) + convert(bias[c], biasType), out type)
struct BiasEpilogue {
  /// Operands of `pre` beside the accumulator (e.g. scales), with their maps
  /// over the result's dimensions.
  llvm::SmallVector<mlir::Value> extras;
  llvm::SmallVector<mlir::AffineMap> extraMaps;
  /// Turns the scalars (acc, extras...) into the value the bias is added to;
  /// null: the accumulator itself.
  llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                 mlir::ValueRange)>
      pre;
  /// The type the bias is added in (float layers: the accumulator's; integer
  /// GEMMs: f32, after the rescale).
  mlir::Type biasType;
  /// The bias, or null; read with channelMap(bias, result, channelDim).
  mlir::Value bias;
  int64_t channelDim = 0;
  /// How the accumulator is read over the result's dimensions; null: the
  /// identity (an im2col convolution's [N, OH, OW, F] sums are read
  /// transposed into its NCHW result).
  mlir::AffineMap accMap;
};

/// The epilogue `e` on the accumulator `acc` (the result's shape): one
/// elementwise linalg.generic producing the layer's result.
mlir::Value addBias(mlir::OpBuilder &b, mlir::Location loc,
                    const LayerTypes &types, mlir::Value acc,
                    const BiasEpilogue &e);

/// The mean epilogue: `sum / count` in the sum's type, converted once to the
/// element type of `type`.
mlir::Value divideByCount(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value sum, double count, mlir::ShapedType type);

/// Base of every pattern of the lowering: the lowering's options.
template <typename OpTy>
struct MixLoweringPattern : mlir::OpConversionPattern<OpTy> {
  MixLoweringPattern(mlir::MLIRContext *ctx, const MixToLinalgOptions &options)
      : mlir::OpConversionPattern<OpTy>(ctx), options(options) {}

  MixToLinalgOptions options;
};

/// Base of the layer lowerings (dense, matmul, conv2d, the reductions and
/// their integer forms): resolves the layer's types, lets the derived class
/// build the result (`lower`), and replaces the op. The accumulator comes from
/// the layer's resolution for mix layers, and is i32 (exact integer sums) for
/// the quantized ops.
template <typename OpTy>
class LayerLoweringBase : public MixLoweringPattern<OpTy> {
public:
  using MixLoweringPattern<OpTy>::MixLoweringPattern;
  using OpAdaptor = typename mlir::OpConversionPattern<OpTy>::OpAdaptor;

  mlir::LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const final {
    mlir::FailureOr<mlir::Type> acc = getAccumulatorType(op);
    if (failed(acc))
      return rewriter.notifyMatchFailure(
          op, "the layer has no float accumulator type");
    LayerTypes types{llvm::cast<mlir::ShapedType>(op.getType()), *acc};
    rewriter.replaceOp(op, lower(op, adaptor, types, rewriter));
    return mlir::success();
  }

protected:
  /// Builds the layer's result from the converted operands.
  virtual mlir::Value
  lower(OpTy op, OpAdaptor adaptor, const LayerTypes &types,
        mlir::ConversionPatternRewriter &rewriter) const = 0;

  /// The accumulator element type of `op`.
  static mlir::FailureOr<mlir::Type> getAccumulatorType(OpTy op) {
    if constexpr (OpTy::template hasTrait<LayerOpInterface::Trait>())
      return accumulatorType(op);
    else
      return mlir::Type(mlir::IntegerType::get(op.getContext(), 32));
  }

  /// The run-time checks of this op's epilogue, if any: the op to report at,
  /// or null when the lowering's checks are off.
  mlir::Operation *checkedAt(OpTy op) const {
    return this->options.checks ? op.getOperation() : nullptr;
  }
};

/// A convolution's window: strides and dilations (h, w), padding (top,
/// left, bottom, right).
struct ConvWindow {
  llvm::ArrayRef<int64_t> strides, dilations, padding;
};

/// The f32 convolution of the unpadded `input` [N, C, H, W] with `weight`
/// ([C, 1, KH, KW] when `depthwise`, [F, C / groups, KH, KW] otherwise):
/// one linalg.generic over (n, f, c, kh, kw, oh, ow) with the weight its
/// only operand, reading the input at the clamped position and +0 outside
/// it (what a +0-padded copy would hold), one fma per step into the
/// 0-filled sum of `types` (result shape, f32). Marked "depthwise_f32" or
/// "conv2d_f32" with its window for mix-use-microkernels, which turns it
/// into one call of mixrt's kernel (per image and group for several
/// groups). Defined in MixToLinalgConvolutions.cpp; also used by qconv2d
/// (MixToLinalgQuantized.cpp) for sums exact in f32.
mlir::Value unpaddedConvolution(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value input, mlir::Value weight,
                                const ConvWindow &window, int64_t groups,
                                const LayerTypes &types, bool depthwise);

/// The exact int8 convolution (one group) of the unpadded i8 `input`
/// [N, C, H, W] with the i8 `weight` [F, C, KH, KW]: one linalg.generic over
/// (n, f, c, kh, kw, oh, ow) with operands weight, `inputZp` (rank 0, i32)
/// and `weightZps` ([1] or [F], i32), summing (x - za) * (w - zw[f]) in i32
/// into the 0-filled sum of `types` (result shape, i32), x the input at the
/// clamped position or the zero point outside it (what the zero-point-padded
/// copy would hold: a padded tap adds 0). Marked "conv2d_s8" with its window
/// for mix-use-microkernels (mixrt_ukernel_conv2d_s8s8s32). Defined in
/// MixToLinalgConvolutions.cpp.
mlir::Value unpaddedIntConvolution(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value input, mlir::Value inputZp,
                                   mlir::Value weight, mlir::Value weightZps,
                                   const ConvWindow &window,
                                   const LayerTypes &types);

} // namespace mix::lowering

#endif // MIXC_PASSES_CONVERSION_LAYERLOWERING_H
