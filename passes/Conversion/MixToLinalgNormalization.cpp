//===- MixToLinalgNormalization.cpp - normalization and pooling -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// batch_norm (inference: per-channel statistics), layer_norm (mean and
// biased variance over the trailing axes in the accumulator type),
// instance_norm and group_norm (the same per sample and group of channels),
// global_avg_pool (sum in the
// accumulator type, then the mean epilogue) and max_pool2d (exact in any
// format; padding reads -inf).
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

struct BatchNormLowering : MixLoweringPattern<BatchNormOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
    Value input = adaptor.getInput();
    Type compute = cast<ShapedType>(input.getType()).getElementType();
    int64_t rank = type.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap channel =
        AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx);
    double eps = op.getEpsilon().convertToDouble();
    Value result = generic(
        rewriter, loc,
        ValueRange{input, adaptor.getScale(), adaptor.getBias(),
                   adaptor.getMean(), adaptor.getVariance()},
        type.getShape(), type.getElementType(), std::nullopt,
        {id, channel, channel, channel, channel, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto cv = [&](Value v) { return convertScalar(b, l, v, compute); };
          Value epsilon =
              arith::ConstantOp::create(b, l, b.getFloatAttr(compute, eps));
          Value denom = math::SqrtOp::create(
              b, l, arith::AddFOp::create(b, l, cv(a[4]), epsilon));
          Value centered = arith::SubFOp::create(b, l, a[0], cv(a[3]));
          // One operand op per statement (host-compiler independent IR).
          Value ratio = arith::DivFOp::create(b, l, centered, denom);
          Value scaled = arith::MulFOp::create(b, l, cv(a[1]), ratio);
          Value y = arith::AddFOp::create(b, l, scaled, cv(a[2]));
          return convertScalar(b, l, y, type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Where a normalization reads its operands: the iteration space of its
/// statistics (their shape, how x is read in it, the reduced loops) and of
/// its result (how the statistics and the parameters are read there).
struct NormalizationMaps {
  /// Loops of the statistics: x is read with `xRead`; `extent` (may be
  /// null) is a shape-only operand read with `extentMap` that gives the
  /// extent of loops x does not read with a plain dimension.
  AffineMap xRead;
  Value extent;
  AffineMap extentMap;
  SmallVector<utils::IteratorType> iterators;
  /// The statistics: one mean and variance per group, `statShape`, written
  /// with `statWrite` in the statistics' loops.
  SmallVector<int64_t> statShape;
  AffineMap statWrite;
  /// The number of elements of a group.
  double count = 0;
  /// In the result's loops (the identity over x): the statistics and the
  /// parameters (gamma and beta, scale and bias).
  AffineMap statRead;
  AffineMap paramRead;
};

/// y = (x - mean) / sqrt(variance + epsilon) * gamma + beta per group: the
/// sum, mean, centred sum of squares (fma) and the whole epilogue in the
/// accumulator type `acc`, the biased variance (divide by the count), and
/// one rounding to the result's element type.
Value normalize(OpBuilder &b, Location loc, Value x, Value gamma, Value beta,
                double eps, Type acc, ShapedType result,
                const NormalizationMaps &m) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = result.getRank();
  SmallVector<Value> inputs = {x};
  SmallVector<AffineMap> maps = {m.xRead};
  if (m.extent) {
    inputs.push_back(m.extent);
    maps.push_back(m.extentMap);
  }
  SmallVector<AffineMap> sumMaps = maps;
  sumMaps.push_back(m.statWrite);
  Value sum =
      generic(b, loc, inputs, m.statShape, acc, 0.0, sumMaps, m.iterators,
              [&](OpBuilder &nb, Location l, ValueRange a) {
                return Value(arith::AddFOp::create(
                    nb, l, a.back(), convertScalar(nb, l, a[0], acc)));
              });
  auto count = [&](OpBuilder &nb, Location l) {
    return arith::ConstantOp::create(nb, l, nb.getFloatAttr(acc, m.count));
  };
  int64_t statRank = static_cast<int64_t>(m.statShape.size());
  AffineMap statId = AffineMap::getMultiDimIdentityMap(statRank, ctx);
  Value mean = generic(
      b, loc, sum, m.statShape, acc, std::nullopt, {statId, statId},
      SmallVector<utils::IteratorType>(statRank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        return Value(arith::DivFOp::create(nb, l, a[0], count(nb, l)));
      });
  // Biased variance (divide by the count), as PyTorch and ONNX; two passes.
  inputs.push_back(mean);
  maps.push_back(m.statWrite);
  maps.push_back(m.statWrite);
  Value sq =
      generic(b, loc, inputs, m.statShape, acc, 0.0, maps, m.iterators,
              [&](OpBuilder &nb, Location l, ValueRange a) {
                Value c = arith::SubFOp::create(
                    nb, l, convertScalar(nb, l, a[0], acc), a[a.size() - 2]);
                return Value(math::FmaOp::create(nb, l, c, c, a.back()));
              });
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  return generic(
      b, loc, ValueRange{x, mean, sq, gamma, beta}, result.getShape(),
      result.getElementType(), std::nullopt,
      {id, m.statRead, m.statRead, m.paramRead, m.paramRead, id},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto cv = [&](Value v) { return convertScalar(nb, l, v, acc); };
        Value var = arith::DivFOp::create(nb, l, a[2], count(nb, l));
        Value epsilon =
            arith::ConstantOp::create(nb, l, nb.getFloatAttr(acc, eps));
        Value denom = math::SqrtOp::create(
            nb, l, arith::AddFOp::create(nb, l, var, epsilon));
        Value norm = arith::DivFOp::create(
            nb, l, arith::SubFOp::create(nb, l, cv(a[0]), a[1]), denom);
        // One operand op per statement (host-compiler independent IR).
        Value shift = cv(a[4]);
        Value scale = cv(a[3]);
        Value y = math::FmaOp::create(nb, l, norm, scale, shift);
        return convertScalar(nb, l, y, result.getElementType());
      });
}

struct LayerNormLowering : LayerLoweringBase<LayerNormOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(LayerNormOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    ShapedType type = types.result;
    int64_t rank = type.getRank();
    // The attribute getter returns an unsigned value: -1 is the last axis.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    // Statistics per leading index [0, axis), over the trailing dimensions.
    NormalizationMaps m;
    m.xRead = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineExpr> lead, trail;
    for (int64_t i = 0; i < rank; ++i)
      (i < axis ? lead : trail).push_back(getAffineDimExpr(i, ctx));
    m.iterators.assign(rank, utils::IteratorType::parallel);
    m.count = 1;
    for (int64_t i = axis; i < rank; ++i) {
      m.iterators[i] = utils::IteratorType::reduction;
      m.count *= double(type.getDimSize(i));
    }
    m.statShape.assign(type.getShape().begin(), type.getShape().begin() + axis);
    m.statWrite = AffineMap::get(rank, 0, lead, ctx);
    m.statRead = m.statWrite;
    m.paramRead = AffineMap::get(rank, 0, trail, ctx);
    return normalize(rewriter, op.getLoc(), adaptor.getInput(),
                     adaptor.getGamma(), adaptor.getBeta(),
                     op.getEpsilon().convertToDouble(), types.acc, type, m);
  }
};

/// The maps of a normalization per sample and group of `channels / groups`
/// consecutive channels of an [N, C, ...] input: the statistics' loops are
/// (n, g, j, spatial...) with the channel g * (C / groups) + j, their extent
/// [groups, C / groups] given by a shape-only operand.
NormalizationMaps groupMaps(OpBuilder &b, Location loc, ShapedType type,
                            int64_t groups, Type acc) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  int64_t perGroup = type.getDimSize(1) / groups;
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  NormalizationMaps m;
  SmallVector<AffineExpr> xExprs = {dim(0), dim(1) * perGroup + dim(2)};
  for (int64_t i = 2; i < rank; ++i)
    xExprs.push_back(dim(i + 1));
  m.xRead = AffineMap::get(rank + 1, 0, xExprs, ctx);
  m.extent =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{groups, perGroup}, acc);
  m.extentMap = AffineMap::get(rank + 1, 0, {dim(1), dim(2)}, ctx);
  m.iterators.assign(rank + 1, utils::IteratorType::reduction);
  m.iterators[0] = m.iterators[1] = utils::IteratorType::parallel;
  m.statShape = {type.getDimSize(0), groups};
  m.statWrite = AffineMap::get(rank + 1, 0, {dim(0), dim(1)}, ctx);
  m.count = double(perGroup);
  for (int64_t i = 2; i < rank; ++i)
    m.count *= double(type.getDimSize(i));
  m.statRead =
      AffineMap::get(rank, 0, {dim(0), dim(1).floorDiv(perGroup)}, ctx);
  m.paramRead = AffineMap::get(rank, 0, {dim(1)}, ctx);
  return m;
}

struct InstanceNormLowering : LayerLoweringBase<InstanceNormOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(InstanceNormOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    // One group per channel.
    NormalizationMaps m = groupMaps(rewriter, op.getLoc(), types.result,
                                    types.result.getDimSize(1), types.acc);
    return normalize(rewriter, op.getLoc(), adaptor.getInput(),
                     adaptor.getScale(), adaptor.getBias(),
                     op.getEpsilon().convertToDouble(), types.acc, types.result,
                     m);
  }
};

struct GroupNormLowering : LayerLoweringBase<GroupNormOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(GroupNormOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    NormalizationMaps m =
        groupMaps(rewriter, op.getLoc(), types.result,
                  static_cast<int64_t>(op.getNumGroups()), types.acc);
    return normalize(rewriter, op.getLoc(), adaptor.getInput(),
                     adaptor.getScale(), adaptor.getBias(),
                     op.getEpsilon().convertToDouble(), types.acc, types.result,
                     m);
  }
};

struct GlobalAvgPoolLowering : LayerLoweringBase<GlobalAvgPoolOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(GlobalAvgPoolOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type acc = types.acc;
    auto inType = cast<ShapedType>(adaptor.getInput().getType());
    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    Value sum = generic(
        rewriter, loc, adaptor.getInput(), types.result.getShape(), acc, 0.0,
        {AffineMap::getMultiDimIdentityMap(4, ctx),
         AffineMap::get(4, 0, {dim(0), dim(1)}, ctx)},
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::reduction, utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return Value(arith::AddFOp::create(b, l, a[1],
                                             convertScalar(b, l, a[0], acc)));
        });
    double count = double(inType.getDimSize(2) * inType.getDimSize(3));
    return divideByCount(rewriter, loc, sum, count, types.result);
  }
};

struct MaxPool2DLowering : MixLoweringPattern<MaxPool2DOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
    Type inElem =
        cast<ShapedType>(adaptor.getInput().getType()).getElementType();
    ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(),
                      d = op.getDilations();
    // With ceil_mode the last windows may reach past the bottom and right
    // padding: they read -inf there too.
    SmallVector<int64_t> padding(op.getPadding());
    auto inType = cast<ShapedType>(adaptor.getInput().getType());
    for (int i = 0; i < 2; ++i) {
      int64_t needed =
                  (type.getDimSize(2 + i) - 1) * s[i] + d[i] * (k[i] - 1) + 1,
              padded = inType.getDimSize(2 + i) + padding[i] + padding[2 + i];
      padding[2 + i] += std::max<int64_t>(0, needed - padded);
    }
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), padding,
                   arith::ConstantOp::create(
                       rewriter, loc,
                       rewriter.getFloatAttr(
                           inElem, -std::numeric_limits<double>::infinity())));
    Type elem = cast<ShapedType>(input.getType()).getElementType();
    // The kernel extent comes from a shape-only operand.
    Value window = tensor::EmptyOp::create(rewriter, loc, k, elem);
    PoolMaps pool = poolMaps(s, ctx, d);
    Value max =
        generic(rewriter, loc, ValueRange{input, window}, type.getShape(), elem,
                -std::numeric_limits<double>::infinity(), pool.maps,
                pool.iterators, [&](OpBuilder &b, Location l, ValueRange a) {
                  return Value(arith::MaximumFOp::create(b, l, a[2], a[0]));
                });
    Value result = convertTensor(rewriter, loc, max, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mix::lowering::populateNormalizationPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<BatchNormLowering, LayerNormLowering, InstanceNormLowering,
               GroupNormLowering, GlobalAvgPoolLowering, MaxPool2DLowering>(
      patterns.getContext(), options);
}
