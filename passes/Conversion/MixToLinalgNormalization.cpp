//===- MixToLinalgNormalization.cpp - normalization and pooling -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// batch_norm (inference: per-channel statistics), layer_norm (per-row mean
// and biased variance in the accumulator type), global_avg_pool (sum in the
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

struct LayerNormLowering : LayerLoweringBase<LayerNormOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(LayerNormOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    ShapedType type = types.result;
    Type acc = types.acc;
    Value x = adaptor.getInput();
    int64_t rank = type.getRank();
    int64_t d = type.getShape().back();
    SmallVector<int64_t> rowShape(type.getShape().drop_back());
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineExpr> rowExprs;
    for (int64_t i = 0; i + 1 < rank; ++i)
      rowExprs.push_back(getAffineDimExpr(i, ctx));
    AffineMap row = AffineMap::get(rank, 0, rowExprs, ctx);
    AffineMap last =
        AffineMap::get(rank, 0, {getAffineDimExpr(rank - 1, ctx)}, ctx);
    SmallVector<utils::IteratorType> reduce(rank,
                                            utils::IteratorType::parallel);
    reduce.back() = utils::IteratorType::reduction;
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    auto count = [&](OpBuilder &b, Location l) {
      return arith::ConstantOp::create(b, l, b.getFloatAttr(acc, double(d)));
    };
    Value sum = generic(rewriter, loc, x, rowShape, acc, 0.0, {id, row}, reduce,
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          return Value(arith::AddFOp::create(
                              b, l, a[1], convertScalar(b, l, a[0], acc)));
                        });
    Value mean =
        generic(rewriter, loc, sum, rowShape, acc, std::nullopt,
                {AffineMap::getMultiDimIdentityMap(rank - 1, ctx),
                 AffineMap::getMultiDimIdentityMap(rank - 1, ctx)},
                SmallVector<utils::IteratorType>(rank - 1,
                                                 utils::IteratorType::parallel),
                [&](OpBuilder &b, Location l, ValueRange a) {
                  return Value(arith::DivFOp::create(b, l, a[0], count(b, l)));
                });
    // Biased variance (divide by D), as PyTorch's LayerNorm.
    Value sq = generic(
        rewriter, loc, ValueRange{x, mean}, rowShape, acc, 0.0, {id, row, row},
        reduce, [&](OpBuilder &b, Location l, ValueRange a) {
          Value c =
              arith::SubFOp::create(b, l, convertScalar(b, l, a[0], acc), a[1]);
          return Value(math::FmaOp::create(b, l, c, c, a[2]));
        });
    double eps = op.getEpsilon().convertToDouble();
    return generic(
        rewriter, loc,
        ValueRange{x, mean, sq, adaptor.getGamma(), adaptor.getBeta()},
        type.getShape(), type.getElementType(), std::nullopt,
        {id, row, row, last, last, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto cv = [&](Value v) { return convertScalar(b, l, v, acc); };
          Value var = arith::DivFOp::create(b, l, a[2], count(b, l));
          Value epsilon =
              arith::ConstantOp::create(b, l, b.getFloatAttr(acc, eps));
          Value denom = math::SqrtOp::create(
              b, l, arith::AddFOp::create(b, l, var, epsilon));
          Value norm = arith::DivFOp::create(
              b, l, arith::SubFOp::create(b, l, cv(a[0]), a[1]), denom);
          // One operand op per statement (host-compiler independent IR).
          Value beta = cv(a[4]);
          Value gamma = cv(a[3]);
          Value y = math::FmaOp::create(b, l, norm, gamma, beta);
          return convertScalar(b, l, y, type.getElementType());
        });
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
  patterns.add<BatchNormLowering, LayerNormLowering, GlobalAvgPoolLowering,
               MaxPool2DLowering>(patterns.getContext(), options);
}
