//===- MixToLinalgReductions.cpp - reduce_* and avg_pool2d to linalg ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// reduce_sum, reduce_mean and reduce_l2 sum in the layer's accumulator
// type, in index order (one linalg.generic whose reduced loops keep their
// positions), then finish once: the mean divides by the count, l2 takes the
// square root, and the result is converted once to the output type.
// reduce_prod multiplies in the accumulator type the same way, from 1.
// reduce_max and reduce_min compare in the activations type (exact) with
// NaN propagating. avg_pool2d sums each window like max_pool2d and divides
// by the kernel size or by the window's cells inside the input. argmax and
// argmin: one generic over the result whose body scans the axis in index
// order (an scf.for reading the input), comparing in the operand's type
// widened to f32 (f64 for f64), exactly.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "dialect/MixOpsVerify.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

enum class ReduceKind { sum, mean, l2, max, min, prod };

template <typename OpTy> constexpr ReduceKind kReduceKind = ReduceKind::sum;
template <> constexpr ReduceKind kReduceKind<ReduceMeanOp> = ReduceKind::mean;
template <> constexpr ReduceKind kReduceKind<ReduceL2Op> = ReduceKind::l2;
template <> constexpr ReduceKind kReduceKind<ReduceMaxOp> = ReduceKind::max;
template <> constexpr ReduceKind kReduceKind<ReduceMinOp> = ReduceKind::min;
template <> constexpr ReduceKind kReduceKind<ReduceProdOp> = ReduceKind::prod;

template <typename OpTy> struct ReduceLowering : LayerLoweringBase<OpTy> {
  using LayerLoweringBase<OpTy>::LayerLoweringBase;
  using OpAdaptor = typename LayerLoweringBase<OpTy>::OpAdaptor;

  Value lower(OpTy op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    constexpr ReduceKind kind = kReduceKind<OpTy>;
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto inType = cast<ShapedType>(input.getType());
    int64_t rank = inType.getRank();
    SmallVector<int64_t> axes =
        *checks::reducedAxes(op, op.getAxes(), rank); // verified
    bool extremum = kind == ReduceKind::max || kind == ReduceKind::min;
    // Sums accumulate; extrema compare exactly in the activations type.
    Type acc = extremum ? inType.getElementType() : types.acc;

    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    int64_t count = 1;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(axes, d);
      iterators.push_back(reduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
      if (reduced)
        count *= inType.getDimSize(d);
      if (!reduced)
        outExprs.push_back(getAffineDimExpr(d, ctx));
      else if (op.getKeepdims())
        outExprs.push_back(getAffineConstantExpr(0, ctx));
    }
    double init =
        kind == ReduceKind::max    ? -std::numeric_limits<double>::infinity()
        : kind == ReduceKind::min  ? std::numeric_limits<double>::infinity()
        : kind == ReduceKind::prod ? 1.0
                                   : 0.0;
    Value reduced = generic(
        rewriter, loc, input, types.result.getShape(), acc, init,
        {AffineMap::getMultiDimIdentityMap(rank, ctx),
         AffineMap::get(rank, 0, outExprs, ctx)},
        iterators, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value x = convertScalar(b, l, a[0], acc);
          switch (kind) {
          case ReduceKind::max:
            return arith::MaximumFOp::create(b, l, a[1], x);
          case ReduceKind::min:
            return arith::MinimumFOp::create(b, l, a[1], x);
          case ReduceKind::l2: {
            Value square = arith::MulFOp::create(b, l, x, x);
            return arith::AddFOp::create(b, l, a[1], square);
          }
          case ReduceKind::prod:
            return arith::MulFOp::create(b, l, a[1], x);
          default:
            return arith::AddFOp::create(b, l, a[1], x);
          }
        });
    if (kind == ReduceKind::mean)
      return divideByCount(rewriter, loc, reduced, double(count), types.result);
    if (kind == ReduceKind::prod) {
      // A product leaves a narrower output's range after a few factors: a
      // finite product that rounds to +-inf is reported, as a checked cast.
      Type to = types.out();
      bool check = this->options.checks && cast<FloatType>(to).getWidth() <
                                               cast<FloatType>(acc).getWidth();
      std::string what;
      llvm::raw_string_ostream(what) << "reduce_prod in " << to << " overflows";
      return elementwise(rewriter, loc, reduced, types.result,
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           return roundChecked(b, l, a[0], to, check, op, what,
                                               types.result.getShape());
                         });
    }
    if (kind == ReduceKind::l2)
      return elementwise(rewriter, loc, reduced, types.result,
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           Value root = math::SqrtOp::create(b, l, a[0]);
                           return convertScalar(b, l, root, types.out());
                         });
    return convertTensor(rewriter, loc, reduced, types.result);
  }
};

/// argmax / argmin: for each result element, the scan of its slice from
/// index 0 keeps (best, index). First index: x replaces best when best is
/// not NaN and x is larger (smaller) or NaN (`ugt` / `ult` of x and best:
/// the first NaN stays). Last index: when x is NaN, or x >= best (<=):
/// ties and later NaNs move the index on, a number never replaces a NaN.
template <typename OpTy> struct ArgExtremumLowering : MixLoweringPattern<OpTy> {
  using MixLoweringPattern<OpTy>::MixLoweringPattern;
  using OpAdaptor = typename MixLoweringPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, ArgMaxOp>;
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<ShapedType>(input.getType());
    auto type = cast<ShapedType>(op.getType());
    int64_t rank = inType.getRank();
    int64_t axis = int64_t(op.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t size = inType.getDimSize(axis);
    bool keep = op.getKeepdims(), last = op.getSelectLastIndex();
    Type wide = inType.getElementType().isF64() ? Type(rewriter.getF64Type())
                                                : Type(rewriter.getF32Type());
    int64_t outRank = type.getRank();
    Value result = generic(
        rewriter, loc, ValueRange{}, type.getShape(), type.getElementType(),
        std::nullopt,
        {AffineMap::getMultiDimIdentityMap(outRank, rewriter.getContext())},
        SmallVector<utils::IteratorType>(outRank,
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          // The input index of the slice's element k.
          SmallVector<Value> index;
          for (int64_t d = 0, o = 0; d < rank; ++d) {
            if (d == axis) {
              index.push_back(Value());
              if (keep)
                ++o;
              continue;
            }
            index.push_back(linalg::IndexOp::create(b, l, o++));
          }
          auto read = [&](OpBuilder &rb, Value k) {
            SmallVector<Value> at(index);
            at[axis] = k;
            Value x = tensor::ExtractOp::create(rb, l, input, at);
            return convertScalar(rb, l, x, wide);
          };
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value first = read(b, zero);
          auto scan = scf::ForOp::create(
              b, l, arith::ConstantIndexOp::create(b, l, 1),
              arith::ConstantIndexOp::create(b, l, size),
              arith::ConstantIndexOp::create(b, l, 1), ValueRange{first, zero},
              [&](OpBuilder &fb, Location fl, Value k, ValueRange args) {
                Value x = read(fb, k);
                Value take;
                if (last) {
                  Value nan = arith::CmpFOp::create(
                      fb, fl, arith::CmpFPredicate::UNO, x, x);
                  Value better =
                      arith::CmpFOp::create(fb, fl,
                                            isMax ? arith::CmpFPredicate::OGE
                                                  : arith::CmpFPredicate::OLE,
                                            x, args[0]);
                  take = arith::OrIOp::create(fb, fl, nan, better);
                } else {
                  Value number = arith::CmpFOp::create(
                      fb, fl, arith::CmpFPredicate::ORD, args[0], args[0]);
                  Value better =
                      arith::CmpFOp::create(fb, fl,
                                            isMax ? arith::CmpFPredicate::UGT
                                                  : arith::CmpFPredicate::ULT,
                                            x, args[0]);
                  take = arith::AndIOp::create(fb, fl, number, better);
                }
                Value best = arith::SelectOp::create(fb, fl, take, x, args[0]);
                Value at = arith::SelectOp::create(fb, fl, take, k, args[1]);
                scf::YieldOp::create(fb, fl, ValueRange{best, at});
              });
          return arith::IndexCastOp::create(b, l, type.getElementType(),
                                            scan.getResult(1));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AvgPool2DLowering : LayerLoweringBase<AvgPool2DOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(AvgPool2DOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type acc = types.acc;
    auto inType = cast<ShapedType>(adaptor.getInput().getType());
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(inType.getElementType(), 0.0));
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(), zero);
    ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(),
                      p = op.getPadding();
    // As max_pool2d: the window's extent from a shape-only operand.
    Value window = tensor::EmptyOp::create(rewriter, loc, k, acc);
    PoolMaps pool = poolMaps(s, ctx);
    Value sum =
        generic(rewriter, loc, ValueRange{input, window},
                types.result.getShape(), acc, 0.0, pool.maps, pool.iterators,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  return Value(arith::AddFOp::create(
                      b, l, a[2], convertScalar(b, l, a[0], acc)));
                });
    if (op.getCountIncludePad())
      return divideByCount(rewriter, loc, sum, double(k[0] * k[1]),
                           types.result);
    // The cells of window (oh, ow) inside the input, per dimension:
    // min(o * s + k, pad + size) - max(o * s, pad), in padded coordinates.
    int64_t h = inType.getDimSize(2), w = inType.getDimSize(3);
    return elementwise(
        rewriter, loc, sum, types.result,
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto index = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v).getResult();
          };
          auto inside = [&](unsigned d, int64_t stride, int64_t kernel,
                            int64_t pad, int64_t size) {
            Value o = linalg::IndexOp::create(b, l, d);
            Value first = arith::MulIOp::create(b, l, o, index(stride));
            Value end = arith::AddIOp::create(b, l, first, index(kernel));
            Value lo = arith::MaxSIOp::create(b, l, first, index(pad));
            Value hi = arith::MinSIOp::create(b, l, end, index(pad + size));
            return arith::SubIOp::create(b, l, hi, lo).getResult();
          };
          Value rows = inside(2, s[0], k[0], p[0], h);
          Value cols = inside(3, s[1], k[1], p[1], w);
          Value cells = arith::MulIOp::create(b, l, rows, cols);
          Value asInt = arith::IndexCastOp::create(b, l, b.getI64Type(), cells);
          Value n = arith::SIToFPOp::create(b, l, acc, asInt);
          Value mean = arith::DivFOp::create(b, l, a[0], n);
          return convertScalar(b, l, mean, types.out());
        });
  }
};

} // namespace

void mix::lowering::populateReductionPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMeanOp>,
               ReduceLowering<ReduceL2Op>, ReduceLowering<ReduceProdOp>,
               ReduceLowering<ReduceMaxOp>, ReduceLowering<ReduceMinOp>,
               AvgPool2DLowering, ArgExtremumLowering<ArgMaxOp>,
               ArgExtremumLowering<ArgMinOp>>(patterns.getContext(), options);
}
