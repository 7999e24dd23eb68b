//===- MixToLinalgAttention.cpp - attention to linalg ---------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Multi-head attention: q/k/v projections as contractions in the accumulator
// type (plus their biases, in that type), per head
// softmax(Q K^T / sqrt(D) + mask) V (optionally causal), the heads merged and
// rounded to the activations' type for the output projection (plus its bias).
// mix.attention_core (between the quantized projections of int8 attention)
// is the same core, in its operands' type.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "dialect/MixOpsVerify.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

/// [B, S, E] -> [B, S, H, E/H] (row-major split of the last dimension).
Value splitHeads(OpBuilder &b, Location loc, Value x, int64_t heads) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape = {type.getDimSize(0), type.getDimSize(1), heads,
                                type.getDimSize(2) / heads};
  return tensor::ExpandShapeOp::create(
      b, loc, type.clone(shape), x,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// The iterators of the per-head contractions: four parallel loops, then the
/// reduction.
SmallVector<utils::IteratorType> headContractionIterators() {
  return {utils::IteratorType::parallel, utils::IteratorType::parallel,
          utils::IteratorType::parallel, utils::IteratorType::parallel,
          utils::IteratorType::reduction};
}

/// The map reading an attention mask ([S, S], [B, S, S] or [B, H, S, S],
/// dimensions of size 1 broadcast) over the scores' iteration space
/// (b, h, i, j): a dimension of size 1 is read at index 0.
AffineMap maskMap(Value mask, MLIRContext *ctx) {
  ArrayRef<int64_t> shape = cast<ShapedType>(mask.getType()).getShape();
  int64_t rank = static_cast<int64_t>(shape.size());
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i) {
    auto dim = static_cast<unsigned>(checks::attentionMaskAxis(rank, i));
    exprs.push_back(shape[i] == 1 ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(dim, ctx));
  }
  return AffineMap::get(4, 0, exprs, ctx);
}

/// Per head, softmax(Q K^T / sqrt(D) + mask) V on q, k, v [B, S, E] (already
/// projected), in `accType` (the mask, if any, converted to it); the heads
/// merged back into [B, S, E].
Value attentionCore(OpBuilder &rewriter, Location loc, Value qProj, Value kProj,
                    Value vProj, Value mask, int64_t H, bool causal,
                    Type accType) {
  MLIRContext *ctx = rewriter.getContext();
  auto type = cast<ShapedType>(qProj.getType());
  int64_t B = type.getDimSize(0), S = type.getDimSize(1),
          E = type.getDimSize(2), D = E / H;
  Value q = splitHeads(rewriter, loc, qProj, H);
  Value k = splitHeads(rewriter, loc, kProj, H);
  Value v = splitHeads(rewriter, loc, vProj, H);
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // scores[b, h, i, j] = sum_d q[b, i, h, d] k[b, j, h, d] / sqrt(D).
  Value scores = generic(
      rewriter, loc, ValueRange{q, k}, {B, H, S, S}, accType, 0.0,
      {AffineMap::get(5, 0, {dim(0), dim(2), dim(1), dim(4)}, ctx),
       AffineMap::get(5, 0, {dim(0), dim(3), dim(1), dim(4)}, ctx),
       AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)},
      headContractionIterators(), [&](OpBuilder &b, Location l, ValueRange a) {
        // One operand op per statement: the IR must not depend on the
        // order the host compiler evaluates function arguments in.
        Value kv = convertScalar(b, l, a[1], accType);
        Value qv = convertScalar(b, l, a[0], accType);
        return Value(math::FmaOp::create(b, l, qv, kv, a[2]));
      });
  double scale = 1.0 / std::sqrt(double(D));
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  SmallVector<Value> scaledInputs = {scores};
  SmallVector<AffineMap> scaledMaps = {id4};
  if (mask) {
    scaledInputs.push_back(mask);
    scaledMaps.push_back(maskMap(mask, ctx));
  }
  scaledMaps.push_back(id4);
  Value scaled = generic(
      rewriter, loc, scaledInputs, {B, H, S, S}, accType, std::nullopt,
      scaledMaps,
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value c =
            arith::ConstantOp::create(b, l, b.getFloatAttr(accType, scale));
        Value sv = arith::MulFOp::create(b, l, a[0], c);
        if (mask) {
          Value m = convertScalar(b, l, a[1], accType);
          sv = arith::AddFOp::create(b, l, sv, m);
        }
        if (!causal)
          return sv;
        Value i = linalg::IndexOp::create(b, l, 2);
        Value j = linalg::IndexOp::create(b, l, 3);
        Value future =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ugt, j, i);
        Value ninf = arith::ConstantOp::create(
            b, l,
            b.getFloatAttr(accType, -std::numeric_limits<double>::infinity()));
        return Value(arith::SelectOp::create(b, l, future, ninf, sv));
      });
  Value probs = softmax(rewriter, loc, scaled, /*axis=*/3, accType, accType);
  // context[b, i, h, d] = sum_j probs[b, h, i, j] v[b, j, h, d].
  Value context = generic(
      rewriter, loc, ValueRange{probs, v}, {B, S, H, D}, accType, 0.0,
      {AffineMap::get(5, 0, {dim(0), dim(2), dim(1), dim(4)}, ctx),
       AffineMap::get(5, 0, {dim(0), dim(4), dim(2), dim(3)}, ctx),
       AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)},
      headContractionIterators(), [&](OpBuilder &b, Location l, ValueRange a) {
        return Value(math::FmaOp::create(
            b, l, a[0], convertScalar(b, l, a[1], accType), a[2]));
      });
  return tensor::CollapseShapeOp::create(
      rewriter, loc, context,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

struct AttentionLowering : LayerLoweringBase<AttentionOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(AttentionOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ShapedType type = types.result;
    Value x = adaptor.getInput();
    Type act = cast<ShapedType>(x.getType()).getElementType();
    int64_t B = type.getDimSize(0), S = type.getDimSize(1),
            E = type.getDimSize(2);
    // The projections' sums (and biases) stay in the accumulator type.
    LayerTypes accTypes{cast<ShapedType>(type.clone(types.acc)), types.acc};
    auto project = [&](Value w, Value bias) {
      Value sum = contraction(rewriter, loc, x, w, /*rhsBatched=*/false,
                              buildInit(rewriter, loc, types));
      if (!bias)
        return sum;
      // The bias is added in the accumulator type, as mix.dense adds its.
      BiasEpilogue epilogue;
      epilogue.biasType = types.acc;
      epilogue.bias = bias;
      epilogue.channelDim = 2;
      return addBias(rewriter, loc, accTypes, sum, epilogue);
    };
    // Projections: activations x weights, accumulated at accumulator
    // precision and kept there for the scores.
    // One projection per statement, q, k, v: the IR must not depend on the
    // order the host compiler evaluates function arguments in.
    Value qProj = project(adaptor.getWq(), adaptor.getBq());
    Value kProj = project(adaptor.getWk(), adaptor.getBk());
    Value vProj = project(adaptor.getWv(), adaptor.getBv());
    Value merged =
        attentionCore(rewriter, loc, qProj, kProj, vProj, adaptor.getMask(),
                      op.getNumHeads(), op.getCausal(), types.acc);
    // The context, rounded to the activations precision for the output
    // projection.
    Value mergedAct =
        convertTensor(rewriter, loc, merged,
                      cast<ShapedType>(RankedTensorType::get({B, S, E}, act)));
    Value out =
        contraction(rewriter, loc, mergedAct, adaptor.getWo(),
                    /*rhsBatched=*/false, buildInit(rewriter, loc, types));
    if (!adaptor.getBo())
      return convertTensor(rewriter, loc, out, type);
    BiasEpilogue epilogue;
    epilogue.biasType = types.acc;
    epilogue.bias = adaptor.getBo();
    epilogue.channelDim = 2;
    return addBias(rewriter, loc, types, out, epilogue);
  }
};

/// mix.attention_core (int8 attention between its quantized projections):
/// computes in the operands' element type.
struct AttentionCoreLowering : MixLoweringPattern<AttentionCoreOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(AttentionCoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type acc = getElementTypeOrSelf(adaptor.getQ().getType());
    Value merged = attentionCore(
        rewriter, op.getLoc(), adaptor.getQ(), adaptor.getK(), adaptor.getV(),
        adaptor.getMask(), op.getNumHeads(), op.getCausal(), acc);
    rewriter.replaceOp(op, convertTensor(rewriter, op.getLoc(), merged,
                                         cast<ShapedType>(op.getType())));
    return success();
  }
};

} // namespace

void mix::lowering::populateAttentionPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<AttentionLowering, AttentionCoreLowering>(patterns.getContext(),
                                                         options);
}
