//===- MixToLinalgSoftmaxAndLosses.cpp - softmax and losses ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// softmax (max, exp in the input type, sum and division in the accumulator
// type), log_softmax (max, then log-sum-exp in the accumulator type),
// cross_entropy_loss (log-sum-exp per row, mean over rows) and mse_loss (sum of
// squared differences with fma, mean over all elements).
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

Value mix::lowering::softmax(OpBuilder &b, Location loc, Value x, int64_t axis,
                             Type accType, Type outElem) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<ShapedType>(x.getType());
  Type elem = type.getElementType();
  int64_t rank = type.getRank();
  SmallVector<int64_t> reducedShape;
  SmallVector<AffineExpr> reducedExprs;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis) {
      reducedShape.push_back(type.getDimSize(i));
      reducedExprs.push_back(getAffineDimExpr(i, ctx));
    }
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap reduced = AffineMap::get(rank, 0, reducedExprs, ctx);
  SmallVector<utils::IteratorType> reduce(rank, utils::IteratorType::parallel);
  reduce[axis] = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  Value max = generic(
      b, loc, x, reducedShape, elem, -std::numeric_limits<double>::infinity(),
      {id, reduced}, reduce, [&](OpBuilder &nb, Location l, ValueRange a) {
        return Value(arith::MaximumFOp::create(nb, l, a[0], a[1]));
      });
  Value e = generic(b, loc, ValueRange{x, max}, type.getShape(), elem,
                    std::nullopt, {id, reduced, id}, parallel,
                    [&](OpBuilder &nb, Location l, ValueRange a) {
                      return Value(math::ExpOp::create(
                          nb, l, arith::SubFOp::create(nb, l, a[0], a[1])));
                    });
  Value sum = generic(b, loc, e, reducedShape, accType, 0.0, {id, reduced},
                      reduce, [&](OpBuilder &nb, Location l, ValueRange a) {
                        return Value(arith::AddFOp::create(
                            nb, l, a[1], convertScalar(nb, l, a[0], accType)));
                      });
  return generic(b, loc, ValueRange{e, sum}, type.getShape(), outElem,
                 std::nullopt, {id, reduced, id}, parallel,
                 [&](OpBuilder &nb, Location l, ValueRange a) {
                   Value q = arith::DivFOp::create(
                       nb, l, convertScalar(nb, l, a[0], accType), a[1]);
                   return convertScalar(nb, l, q, outElem);
                 });
}

namespace {

struct SoftmaxLowering : LayerLoweringBase<SoftmaxOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(SoftmaxOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    // The attribute getter returns an unsigned value: -1 is the last axis.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += types.result.getRank();
    return softmax(rewriter, op.getLoc(), adaptor.getInput(), axis, types.acc,
                   types.out());
  }
};

/// log_softmax: the max along the axis (exact, in the input type), then
/// d = x - max, exp(d), their sum, log(sum) and d - log(sum) in the
/// accumulator type, rounded once to the result. With checks on and a
/// result narrower than the accumulator, a finite value that rounds to
/// -inf (|x - max| beyond the format's range) is reported.
struct LogSoftmaxLowering : LayerLoweringBase<LogSoftmaxOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(LogSoftmaxOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    auto type = cast<ShapedType>(x.getType());
    Type elem = type.getElementType();
    Type acc = types.acc;
    Type out = types.out();
    int64_t rank = type.getRank();
    // The attribute getter returns an unsigned value: -1 is the last axis.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> reducedShape;
    SmallVector<AffineExpr> reducedExprs;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis) {
        reducedShape.push_back(type.getDimSize(i));
        reducedExprs.push_back(getAffineDimExpr(i, ctx));
      }
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap reduced = AffineMap::get(rank, 0, reducedExprs, ctx);
    SmallVector<utils::IteratorType> reduce(rank,
                                            utils::IteratorType::parallel);
    reduce[axis] = utils::IteratorType::reduction;
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    Value max =
        generic(rewriter, loc, x, reducedShape, elem,
                -std::numeric_limits<double>::infinity(), {id, reduced}, reduce,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  return Value(arith::MaximumFOp::create(b, l, a[0], a[1]));
                });
    auto shifted = [&](OpBuilder &b, Location l, Value v, Value m) {
      // One operand op per statement: the IR must not depend on the order
      // the host compiler evaluates function arguments in.
      Value vw = convertScalar(b, l, v, acc);
      Value mw = convertScalar(b, l, m, acc);
      return Value(arith::SubFOp::create(b, l, vw, mw));
    };
    Value sum = generic(rewriter, loc, ValueRange{x, max}, reducedShape, acc,
                        0.0, {id, reduced, reduced}, reduce,
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          Value e = math::ExpOp::create(
                              b, l, shifted(b, l, a[0], a[1]));
                          return Value(arith::AddFOp::create(b, l, a[2], e));
                        });
    bool check = this->options.checks && cast<FloatType>(out).getWidth() <
                                             cast<FloatType>(acc).getWidth();
    std::string what;
    llvm::raw_string_ostream(what) << "log_softmax in " << out << " overflows";
    return generic(
        rewriter, loc, ValueRange{x, max, sum}, type.getShape(), out,
        std::nullopt, {id, reduced, reduced, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value lse = math::LogOp::create(b, l, a[2]);
          Value y = arith::SubFOp::create(b, l, shifted(b, l, a[0], a[1]), lse);
          return roundChecked(b, l, y, out, check, op, what, type.getShape());
        });
  }
};

struct CrossEntropyLossLowering : LayerLoweringBase<CrossEntropyLossOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(CrossEntropyLossOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type acc = types.acc;
    Value logits = adaptor.getLogits();
    auto lType = cast<ShapedType>(logits.getType());
    Type elem = lType.getElementType();
    int64_t rows = lType.getDimSize(0);
    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row = AffineMap::get(2, 0, {dim(0)}, ctx);
    SmallVector<utils::IteratorType> reduceCols = {
        utils::IteratorType::parallel, utils::IteratorType::reduction};
    Value max =
        generic(rewriter, loc, logits, {rows}, elem,
                -std::numeric_limits<double>::infinity(), {id2, row},
                reduceCols, [&](OpBuilder &b, Location l, ValueRange a) {
                  return Value(arith::MaximumFOp::create(b, l, a[0], a[1]));
                });
    // sum_c exp(x - max) at accumulator precision (exp at activations').
    Value sum = generic(rewriter, loc, ValueRange{logits, max}, {rows}, acc,
                        0.0, {id2, row, row}, reduceCols,
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          Value e = math::ExpOp::create(
                              b, l, arith::SubFOp::create(b, l, a[0], a[1]));
                          return Value(arith::AddFOp::create(
                              b, l, a[2], convertScalar(b, l, e, acc)));
                        });
    // Per row: log(sum) + max - x[label], then the mean over rows.
    Value labels = adaptor.getLabels();
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    AffineMap toScalar = AffineMap::get(1, 0, {}, ctx);
    Value total = generic(
        rewriter, loc, ValueRange{sum, max, labels}, {}, acc, 0.0,
        {id1, id1, id1, toScalar}, {utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value n = linalg::IndexOp::create(b, l, 0);
          Value raw = arith::IndexCastOp::create(b, l, b.getIndexType(), a[2]);
          // Labels are clamped into [0, C): the reference interpreter
          // reports one outside as an error; compiled code never reads
          // outside the logits (as mix.embedding and mix.gather).
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value last = arith::ConstantIndexOp::create(
              b, l, std::max<int64_t>(lType.getDimSize(1) - 1, 0));
          Value low = arith::MaxSIOp::create(b, l, raw, zero);
          Value label = arith::MinSIOp::create(b, l, low, last);
          Value picked =
              tensor::ExtractOp::create(b, l, logits, ValueRange{n, label});
          // One operand op per statement (host-compiler independent IR).
          Value rowMax = convertScalar(b, l, a[1], acc);
          Value lse = arith::AddFOp::create(
              b, l, math::LogOp::create(b, l, a[0]), rowMax);
          Value term = arith::SubFOp::create(b, l, lse,
                                             convertScalar(b, l, picked, acc));
          return Value(arith::AddFOp::create(b, l, a[3], term));
        });
    return divideByCount(rewriter, loc, total, rows, types.result);
  }
};

struct MseLossLowering : LayerLoweringBase<MseLossOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(MseLossOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    Type acc = types.acc;
    auto inType = cast<ShapedType>(adaptor.getPrediction().getType());
    int64_t rank = inType.getRank();
    Value total = generic(
        rewriter, loc, ValueRange{adaptor.getPrediction(), adaptor.getTarget()},
        {}, acc, 0.0,
        {AffineMap::getMultiDimIdentityMap(rank, ctx),
         AffineMap::getMultiDimIdentityMap(rank, ctx),
         AffineMap::get(rank, 0, {}, ctx)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::reduction),
        [&](OpBuilder &b, Location l, ValueRange a) {
          // One operand op per statement (host-compiler independent IR).
          Value target = convertScalar(b, l, a[1], acc);
          Value prediction = convertScalar(b, l, a[0], acc);
          Value diff = arith::SubFOp::create(b, l, prediction, target);
          return Value(math::FmaOp::create(b, l, diff, diff, a[2]));
        });
    double n = double(inType.getNumElements());
    return divideByCount(rewriter, loc, total, n, types.result);
  }
};

} // namespace

void mix::lowering::populateSoftmaxAndLossPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<SoftmaxLowering, LogSoftmaxLowering, CrossEntropyLossLowering,
               MseLossLowering>(patterns.getContext(), options);
}
