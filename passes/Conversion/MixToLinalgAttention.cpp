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

#include "dialect/MixAttrNames.h"
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

/// x [B, S, E] as B*H contiguous head matrices: [B*H, S, D], or with
/// `transposed` [B*H, D, S] (a copy reading x as [B, S, H, D]).
Value headMatrices(OpBuilder &b, Location loc, Value x, int64_t H,
                   bool transposed) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<ShapedType>(x.getType());
  int64_t B = type.getDimSize(0), S = type.getDimSize(1),
          D = type.getDimSize(2) / H;
  Value split = splitHeads(b, loc, x, H);
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // Result (b, h, i, j) reads split[b, i, h, j] (transposed: [b, j, h, i]).
  AffineMap read =
      transposed ? AffineMap::get(4, 0, {dim(0), dim(3), dim(1), dim(2)}, ctx)
                 : AffineMap::get(4, 0, {dim(0), dim(2), dim(1), dim(3)}, ctx);
  SmallVector<int64_t> shape = {B, H, transposed ? D : S, transposed ? S : D};
  Value heads = generic(
      b, loc, split, shape, type.getElementType(), std::nullopt,
      {read, AffineMap::getMultiDimIdentityMap(4, ctx)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &, Location, ValueRange a) { return a[0]; });
  return tensor::CollapseShapeOp::create(
      b, loc, heads, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
}

/// Per head, softmax(Q K^T / sqrt(D) + mask) V on q, k, v [B, S, E] (already
/// projected), in `accType` (the mask, if any, converted to it); the heads
/// merged back into [B, S, E]. Each head's Q, K^T and V are first copied
/// into contiguous matrices, so the two products are batched matmuls (one
/// fma per step, the reduction ascending from +0, as before the copies);
/// in f32 with `microkernels` they are marked "matmul_f32", which
/// mix-use-microkernels computes with mixrt's convolution kernel per head,
/// the same bits.
Value attentionCore(OpBuilder &rewriter, Location loc, Value qProj, Value kProj,
                    Value vProj, Value mask, int64_t H, bool causal,
                    Type accType, bool microkernels) {
  MLIRContext *ctx = rewriter.getContext();
  auto type = cast<ShapedType>(qProj.getType());
  int64_t B = type.getDimSize(0), S = type.getDimSize(1),
          E = type.getDimSize(2), D = E / H;
  // One statement each: the IR must not depend on the order the host
  // compiler evaluates function arguments in.
  Value q = headMatrices(rewriter, loc, qProj, H, /*transposed=*/false);
  Value kT = headMatrices(rewriter, loc, kProj, H, /*transposed=*/true);
  Value v = headMatrices(rewriter, loc, vProj, H, /*transposed=*/false);
  auto product = [&](Value lhs, Value rhs, int64_t n) {
    Value init = zeroFilled(rewriter, loc, {B * H, S, n}, accType);
    Value sum = contraction(rewriter, loc, lhs, rhs, /*rhsBatched=*/true, init);
    if (microkernels && accType.isF32() &&
        getElementTypeOrSelf(lhs.getType()).isF32() &&
        getElementTypeOrSelf(rhs.getType()).isF32())
      sum.getDefiningOp()->setAttr(attr::kUkernel,
                                   rewriter.getStringAttr("matmul_f32"));
    return sum;
  };
  auto perHead = SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}};
  // scores[b, h, i, j] = sum_d q[b, h, i, d] kT[b, h, d, j] / sqrt(D).
  Value products = product(q, kT, S);
  Value scores = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({B, H, S, S}, accType), products,
      perHead);
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
  // context[b, h, i, d] = sum_j probs[b, h, i, j] v[b, h, j, d], then read
  // back as [B, S, H, D] and merged.
  Value probsPerHead =
      tensor::CollapseShapeOp::create(rewriter, loc, probs, perHead);
  Value sums = product(probsPerHead, v, D);
  Value context4 = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({B, H, S, D}, accType), sums,
      perHead);
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  Value context = generic(
      rewriter, loc, context4, {B, S, H, D}, accType, std::nullopt,
      {AffineMap::get(4, 0, {dim(0), dim(2), dim(1), dim(3)}, ctx),
       AffineMap::getMultiDimIdentityMap(4, ctx)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &, Location, ValueRange a) { return a[0]; });
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
    // f32 activations into an f32 accumulator: each projection is a dense
    // layer's GEMM, marked for mixrt's float microkernel as mix.dense's is
    // (mix-use-microkernels calls it when the weight is a constant; the
    // same fma chain, k ascending from +0, so the same bits), and so is its
    // f32 bias epilogue.
    Type f32 = rewriter.getF32Type();
    // f16/bf16 activations into an f32 accumulator: each projection's input
    // widened exactly first (the loops' own conversion, once per element),
    // so the microkernel takes it as f32 activations, as for mix.dense.
    bool widen = options.microkernels && types.acc == f32 &&
                 (act.isF16() || act.isBF16());
    bool microkernel =
        options.microkernels && types.acc == f32 && (act == f32 || widen);
    auto asF32 = [&](Value in) {
      auto inType = cast<ShapedType>(in.getType());
      return widen ? convertTensor(rewriter, loc, in, inType.clone(f32)) : in;
    };
    auto project = [&](Value in, Value w, Value bias, LayerTypes sumTypes) {
      Value sum = contraction(rewriter, loc, in, w, /*rhsBatched=*/false,
                              buildInit(rewriter, loc, types));
      if (microkernel)
        sum.getDefiningOp()->setAttr(attr::kUkernel,
                                     rewriter.getStringAttr("gemm_f32"));
      if (!bias)
        return sum;
      // The bias is added in the accumulator type, as mix.dense adds its.
      BiasEpilogue epilogue;
      epilogue.biasType = types.acc;
      epilogue.bias = bias;
      epilogue.channelDim = 2;
      Value result = addBias(rewriter, loc, sumTypes, sum, epilogue);
      if (microkernel && sumTypes.out() == f32 &&
          cast<ShapedType>(bias.getType()).getElementType() == f32)
        result.getDefiningOp()->setAttr(attr::kUkernelBias,
                                        rewriter.getUnitAttr());
      return result;
    };
    // Projections: activations x weights, accumulated at accumulator
    // precision and kept there for the scores.
    // One projection per statement, q, k, v: the IR must not depend on the
    // order the host compiler evaluates function arguments in.
    Value xIn = asF32(x);
    Value qProj = project(xIn, adaptor.getWq(), adaptor.getBq(), accTypes);
    Value kProj = project(xIn, adaptor.getWk(), adaptor.getBk(), accTypes);
    Value vProj = project(xIn, adaptor.getWv(), adaptor.getBv(), accTypes);
    Value merged = attentionCore(
        rewriter, loc, qProj, kProj, vProj, adaptor.getMask(), op.getNumHeads(),
        op.getCausal(), types.acc, options.microkernels);
    // The context, rounded to the activations precision for the output
    // projection.
    Value mergedAct =
        convertTensor(rewriter, loc, merged,
                      cast<ShapedType>(RankedTensorType::get({B, S, E}, act)));
    Value out =
        project(asF32(mergedAct), adaptor.getWo(), adaptor.getBo(), types);
    if (!adaptor.getBo())
      return convertTensor(rewriter, loc, out, type);
    return out;
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
    Value merged =
        attentionCore(rewriter, op.getLoc(), adaptor.getQ(), adaptor.getK(),
                      adaptor.getV(), adaptor.getMask(), op.getNumHeads(),
                      op.getCausal(), acc, options.microkernels);
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
