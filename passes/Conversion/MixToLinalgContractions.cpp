//===- MixToLinalgContractions.cpp - dense and matmul to linalg -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Float dense and matmul: one linalg.generic over (..., m, k, n), n innermost
// (vectorizable), each output accumulating its products in k order with one
// fma per step in the layer's accumulator type (the order and rounding of
// mixrt's reduced GEMM); then the bias epilogue.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "dialect/MixAttrNames.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

Value mix::lowering::contraction(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs, bool rhsBatched, Value init) {
  auto initType = cast<ShapedType>(init.getType());
  Type accType = initType.getElementType();
  ContractionMaps cmaps =
      contractionMaps(cast<ShapedType>(lhs.getType()).getRank(),
                      initType.getRank(), rhsBatched, b.getContext());
  return generic(b, loc, ValueRange{lhs, rhs}, init,
                 {cmaps.lhs, cmaps.rhs, cmaps.output}, cmaps.iterators,
                 [&](OpBuilder &nb, Location nloc, ValueRange args) {
                   Value x = convertScalar(nb, nloc, args[0], accType);
                   Value y = convertScalar(nb, nloc, args[1], accType);
                   // One fused multiply-add per step, k ascending: the order
                   // and rounding of mixrt's reduced GEMM (docs/runtime.md),
                   // so both agree bit for bit.
                   return Value(math::FmaOp::create(nb, nloc, x, y, args[2]));
                 });
}

namespace {

struct DenseLowering : LayerLoweringBase<DenseOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(DenseOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    // f16/bf16 activations into an f32 accumulator: widened exactly first
    // (the loop's own conversion, once per element), so the microkernel
    // takes them as f32 activations.
    Value input = adaptor.getInput();
    auto inType = cast<ShapedType>(input.getType());
    if (options.microkernels && types.acc == f32 &&
        (inType.getElementType().isF16() || inType.getElementType().isBF16()))
      input = convertTensor(rewriter, loc, input, inType.clone(f32));
    Value sum =
        contraction(rewriter, loc, input, adaptor.getWeight(),
                    /*rhsBatched=*/false, buildInit(rewriter, loc, types));
    BiasEpilogue epilogue;
    epilogue.biasType = types.acc;
    epilogue.bias = adaptor.getBias();
    epilogue.channelDim = types.result.getRank() - 1;
    Value result = addBias(rewriter, loc, types, sum, epilogue);
    // f32 activations into an f32 accumulator: mixrt's float microkernel
    // computes exactly this (mix-use-microkernels decides, after
    // bufferization, whether the weight is a constant it can pack).
    if (types.acc == f32 &&
        cast<ShapedType>(input.getType()).getElementType() == f32) {
      sum.getDefiningOp()->setAttr(attr::kUkernel,
                                   rewriter.getStringAttr("gemm_f32"));
      if (epilogue.bias && types.out() == f32 &&
          cast<ShapedType>(epilogue.bias.getType()).getElementType() == f32)
        result.getDefiningOp()->setAttr(attr::kUkernelBias,
                                        rewriter.getUnitAttr());
    }
    return result;
  }
};

struct MatmulLowering : LayerLoweringBase<MatmulOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(MatmulOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value sum =
        contraction(rewriter, loc, adaptor.getLhs(), adaptor.getRhs(),
                    /*rhsBatched=*/true, buildInit(rewriter, loc, types));
    // f32 operands into an f32 accumulator, static shapes: the product of
    // two activations, which mix-use-microkernels computes with
    // mixrt_ukernel_conv2d_f32 as a 1x1 convolution per batch (the left
    // operand as its weight), the same chain bit for bit.
    Type f32 = rewriter.getF32Type();
    auto lhsType = cast<ShapedType>(adaptor.getLhs().getType());
    auto rhsType = cast<ShapedType>(adaptor.getRhs().getType());
    if (options.microkernels && types.acc == f32 &&
        lhsType.getElementType() == f32 && rhsType.getElementType() == f32 &&
        lhsType.hasStaticShape() && rhsType.hasStaticShape() &&
        types.result.hasStaticShape())
      sum.getDefiningOp()->setAttr(attr::kUkernel,
                                   rewriter.getStringAttr("matmul_f32"));
    return convertTensor(rewriter, loc, sum, types.result);
  }
};

} // namespace

void mix::lowering::populateContractionPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<DenseLowering, MatmulLowering>(patterns.getContext(), options);
}
