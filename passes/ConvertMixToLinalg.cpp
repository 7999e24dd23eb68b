//===- ConvertMixToLinalg.cpp - mix to linalg conversion ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/ConvertMixToLinalg.h"
#include "passes/Int8Bounds.h"
#include "passes/LinalgBuilders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "passes/Passes.h"
#include "passes/Resolve.h"

namespace mix {
#define GEN_PASS_DEF_CONVERTMIXTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The float type the layer accumulates in.
FailureOr<Type> accumulatorType(LayerOpInterface layer) {
  PrecisionAttr acc;
  if (ResolvedAttr resolved = layer.getResolution()) {
    acc = resolved.getAccumulator().getPrecision();
  } else {
    FailureOr<LayerResolution> r = resolveLayer(layer);
    if (failed(r))
      return failure();
    acc = r->accumulator.precision;
  }
  if (!acc.isFloat())
    return layer->emitOpError()
           << "accumulates in " << acc.str()
           << "; integer layers must be lowered by mix-quantize first";
  return acc.getElementType();
}

/// The mean epilogue: `sum / count` in the sum's type, converted once to the
/// element type of `type`.
Value divideByCount(OpBuilder &b, Location loc, Value sum, double count,
                    ShapedType type) {
  return elementwise(
      b, loc, sum, type, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value n = arith::ConstantOp::create(
            nb, l, nb.getFloatAttr(a[0].getType(), count));
        return convertScalar(nb, l, arith::DivFOp::create(nb, l, a[0], n),
                             type.getElementType());
      });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// True when some finite value of `from` rounds to infinity in `to`.
bool canOverflow(Type from, Type to) {
  auto largest = [](Type t) {
    return APFloat::getLargest(cast<FloatType>(t).getFloatSemantics())
        .convertToDouble();
  };
  return largest(to) < largest(from);
}

struct CastLowering : CheckingPattern<CastOp> {
  using CheckingPattern::CheckingPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    Type to = type.getElementType();
    Type from = getElementTypeOrSelf(op.getInput().getType());
    bool check = checks && op.getChecked() && canOverflow(from, to);
    // Overflow is detected in a type that holds both sides exactly.
    Type wide = cast<FloatType>(from).getWidth() < 32
                    ? Type(rewriter.getF32Type())
                    : from;
    std::string what;
    llvm::raw_string_ostream(what) << "checked cast from " << from << " to "
                                   << to << " overflows";
    Value result = elementwise(
        rewriter, op.getLoc(), adaptor.getInput(), type,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value r = convertScalar(b, loc, args[0], to);
          if (!check)
            return r;
          Value inf = arith::ConstantOp::create(
              b, loc, b.getFloatAttr(wide, APFloat::getInf(
                      cast<FloatType>(wide).getFloatSemantics())));
          Value x = math::AbsFOp::create(b, loc,
                                         convertScalar(b, loc, args[0], wide));
          Value back =
              math::AbsFOp::create(b, loc, convertScalar(b, loc, r, wide));
          Value finite =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, inf);
          Value overflowed = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::OEQ, back, inf);
          emitCheck(b, loc, op,
                    arith::AndIOp::create(b, loc, finite, overflowed),
                    /*OUT_OF_RANGE=*/11, what,
                    linearIndex(b, loc, type.getShape()),
                    convertScalar(b, loc, args[0], b.getF64Type()));
          return r;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// relu, add, mul: compute in the operands' type, convert to the result's.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    Value result =
        elementwise(rewriter, op.getLoc(), adaptor.getOperands(), type,
                    [&](OpBuilder &b, Location loc, ValueRange args) {
                      Value r = compute(b, loc, args);
                      return convertScalar(b, loc, r, type.getElementType());
                    });
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value compute(OpBuilder &b, Location loc, ValueRange args);
};

/// Converts both operands to the wider of their types.
std::pair<Value, Value> promote(OpBuilder &b, Location loc, Value x, Value y) {
  auto wx = cast<FloatType>(x.getType()).getWidth();
  auto wy = cast<FloatType>(y.getType()).getWidth();
  if (wx < wy)
    x = convertScalar(b, loc, x, y.getType());
  else if (wy < wx)
    y = convertScalar(b, loc, y, x.getType());
  return {x, y};
}

template <>
Value ElementwiseLowering<ReluOp>::compute(OpBuilder &b, Location loc,
                                           ValueRange args) {
  Value zero =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(args[0].getType(), 0.0));
  // maxnumf: relu(NaN) = 0 would hide NaN; maximumf propagates it.
  return arith::MaximumFOp::create(b, loc, args[0], zero);
}
template <>
Value ElementwiseLowering<AddOp>::compute(OpBuilder &b, Location loc,
                                          ValueRange args) {
  auto [x, y] = promote(b, loc, args[0], args[1]);
  return arith::AddFOp::create(b, loc, x, y);
}
template <>
Value ElementwiseLowering<MulOp>::compute(OpBuilder &b, Location loc,
                                          ValueRange args) {
  auto [x, y] = promote(b, loc, args[0], args[1]);
  return arith::MulFOp::create(b, loc, x, y);
}

/// sum_k lhs[..., m, k] * rhs[..., k, n] in `accType` (k ascending).
Value contraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  bool rhsBatched, Type accType, ShapedType resultType) {
  ContractionMaps cmaps = contractionMaps(
      cast<ShapedType>(lhs.getType()).getRank(), resultType.getRank(),
      rhsBatched, b.getContext());
  return generic(b, loc, ValueRange{lhs, rhs}, resultType.getShape(), accType,
                 0.0, {cmaps.lhs, cmaps.rhs, cmaps.output}, cmaps.iterators,
                 [&](OpBuilder &nb, Location nloc, ValueRange args) {
                   Value x = convertScalar(nb, nloc, args[0], accType);
                   Value y = convertScalar(nb, nloc, args[1], accType);
                   // One fused multiply-add per step, k ascending: the order
                   // and rounding of mixrt's reduced GEMM (docs/runtime.md),
                   // so both agree bit for bit.
                   return Value(math::FmaOp::create(nb, nloc, x, y, args[2]));
                 });
}

struct DenseLowering : OpConversionPattern<DenseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DenseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    auto type = cast<ShapedType>(op.getType());
    Location loc = op.getLoc();
    Value sum =
        contraction(rewriter, loc, adaptor.getInput(), adaptor.getWeight(),
                    /*rhsBatched=*/false, *acc, type);
    Type outElem = type.getElementType();
    SmallVector<Value> inputs = {sum};
    if (adaptor.getBias())
      inputs.push_back(adaptor.getBias());
    Value result =
        elementwise(rewriter, loc, inputs, type,
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value v = args[0];
                      if (args.size() > 1)
                        v = arith::AddFOp::create(
                            b, l, v, convertScalar(b, l, args[1], *acc));
                      return convertScalar(b, l, v, outElem);
                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    auto type = cast<ShapedType>(op.getType());
    Location loc = op.getLoc();
    Value sum = contraction(rewriter, loc, adaptor.getLhs(), adaptor.getRhs(),
                            /*rhsBatched=*/true, *acc, type);
    Value result = convertTensor(rewriter, loc, sum, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct Conv2DLowering : OpConversionPattern<Conv2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
    auto wType = cast<ShapedType>(adaptor.getWeight().getType());
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(),
                   zeroConstant(rewriter, loc,
                                cast<ShapedType>(adaptor.getInput().getType())
                                    .getElementType()));
    ConvMaps conv = convMaps(op.getStrides(), op.getDilations(),
                             op.getGroups(), wType, ctx);
    SmallVector<AffineMap> maps = {conv.input, conv.weight, conv.output};
    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    Value sum = generic(rewriter, loc, ValueRange{input, adaptor.getWeight()},
                        type.getShape(), *acc, 0.0, maps, conv.iterators,
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          return Value(math::FmaOp::create(
                              b, l, convertScalar(b, l, a[0], *acc),
                              convertScalar(b, l, a[1], *acc), a[2]));
                        });
    SmallVector<Value> inputs = {sum};
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    SmallVector<AffineMap> epilogueMaps = {id};
    if (adaptor.getBias()) {
      inputs.push_back(adaptor.getBias());
      epilogueMaps.push_back(AffineMap::get(4, 0, {dim(1)}, ctx));
    }
    epilogueMaps.push_back(id);
    Type outElem = type.getElementType();
    Value result = generic(
        rewriter, loc, inputs, type.getShape(), outElem, std::nullopt,
        epilogueMaps,
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = a[0];
          if (inputs.size() > 1)
            v = arith::AddFOp::create(b, l, v, convertScalar(b, l, a[1], *acc));
          return convertScalar(b, l, v, outElem);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BatchNormLowering : OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
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
          Value scaled = arith::MulFOp::create(
              b, l, cv(a[1]), arith::DivFOp::create(b, l, centered, denom));
          Value y = arith::AddFOp::create(b, l, scaled, cv(a[2]));
          return convertScalar(b, l, y, type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GlobalAvgPoolLowering : OpConversionPattern<GlobalAvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalAvgPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
    auto inType = cast<ShapedType>(adaptor.getInput().getType());
    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    Value sum = generic(
        rewriter, loc, adaptor.getInput(), type.getShape(), *acc, 0.0,
        {AffineMap::getMultiDimIdentityMap(4, ctx),
         AffineMap::get(4, 0, {dim(0), dim(1)}, ctx)},
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::reduction, utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return Value(arith::AddFOp::create(b, l, a[1],
                                             convertScalar(b, l, a[0], *acc)));
        });
    double count = double(inType.getDimSize(2) * inType.getDimSize(3));
    Value result = divideByCount(rewriter, loc, sum, count, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MaxPool2DLowering : OpConversionPattern<MaxPool2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
    Type inElem =
        cast<ShapedType>(adaptor.getInput().getType()).getElementType();
    Value input = padSpatial(
        rewriter, loc, adaptor.getInput(), op.getPadding(),
        arith::ConstantOp::create(
            rewriter, loc,
            rewriter.getFloatAttr(inElem,
                                  -std::numeric_limits<double>::infinity())));
    Type elem = cast<ShapedType>(input.getType()).getElementType();
    ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides();
    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // Loops: n, c, oh, ow (parallel), kh, kw (reduction). The kernel extent
    // comes from a shape-only operand.
    Value window = tensor::EmptyOp::create(rewriter, loc, k, elem);
    Value max = generic(
        rewriter, loc, ValueRange{input, window}, type.getShape(), elem,
        -std::numeric_limits<double>::infinity(),
        {AffineMap::get(
             6, 0,
             {dim(0), dim(1), dim(2) * s[0] + dim(4), dim(3) * s[1] + dim(5)},
             ctx),
         AffineMap::get(6, 0, {dim(4), dim(5)}, ctx),
         AffineMap::get(6, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)},
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::reduction, utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return Value(arith::MaximumFOp::create(b, l, a[2], a[0]));
        });
    Value result = convertTensor(rewriter, loc, max, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// reshape and flatten: collapse to 1-D, expand to the result shape (both
/// row-major, so no data moves), then convert the element type if needed.
template <typename OpTy> struct ReshapeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto type = cast<RankedTensorType>(op.getType());
    auto all = [](int64_t rank) {
      ReassociationIndices r;
      for (int64_t i = 0; i < rank; ++i)
        r.push_back(i);
      return SmallVector<ReassociationIndices>{r};
    };
    Value flat = input;
    if (inType.getRank() != 1)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, input,
                                             all(inType.getRank()));
    Value shaped = flat;
    if (type.getRank() != 1)
      shaped = tensor::ExpandShapeOp::create(
          rewriter, loc, type.clone(inType.getElementType()), flat,
          all(type.getRank()));
    rewriter.replaceOp(op, convertTensor(rewriter, loc, shaped, type));
    return success();
  }
};

struct CrossEntropyLossLowering : OpConversionPattern<CrossEntropyLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossEntropyLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
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
    Value sum = generic(rewriter, loc, ValueRange{logits, max}, {rows}, *acc,
                        0.0, {id2, row, row}, reduceCols,
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          Value e = math::ExpOp::create(
                              b, l, arith::SubFOp::create(b, l, a[0], a[1]));
                          return Value(arith::AddFOp::create(
                              b, l, a[2], convertScalar(b, l, e, *acc)));
                        });
    // Per row: log(sum) + max - x[label], then the mean over rows.
    Value labels = adaptor.getLabels();
    AffineMap id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    AffineMap toScalar = AffineMap::get(1, 0, {}, ctx);
    Value total = generic(
        rewriter, loc, ValueRange{sum, max, labels}, {}, *acc, 0.0,
        {id1, id1, id1, toScalar}, {utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value n = linalg::IndexOp::create(b, l, 0);
          Value label =
              arith::IndexCastOp::create(b, l, b.getIndexType(), a[2]);
          Value picked =
              tensor::ExtractOp::create(b, l, logits, ValueRange{n, label});
          Value lse =
              arith::AddFOp::create(b, l, math::LogOp::create(b, l, a[0]),
                                    convertScalar(b, l, a[1], *acc));
          Value term = arith::SubFOp::create(b, l, lse,
                                             convertScalar(b, l, picked, *acc));
          return Value(arith::AddFOp::create(b, l, a[3], term));
        });
    auto type = cast<ShapedType>(op.getType());
    Value result = divideByCount(rewriter, loc, total, rows, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Softmax of `x` along `axis`: the maximum (exact in any format),
/// exp(x - max) in x's element type, the sum and the division in `accType`,
/// one conversion to `outElem`.
Value softmax(OpBuilder &b, Location loc, Value x, int64_t axis, Type accType,
              Type outElem) {
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

struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    auto type = cast<ShapedType>(op.getType());
    // The attribute getter returns an unsigned value: -1 is the last axis.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += type.getRank();
    rewriter.replaceOp(op, softmax(rewriter, op.getLoc(), adaptor.getInput(),
                                   axis, *acc, type.getElementType()));
    return success();
  }
};

/// [B, S, E] -> [B, S, H, E/H] (row-major split of the last dimension).
Value splitHeads(OpBuilder &b, Location loc, Value x, int64_t heads) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape = {type.getDimSize(0), type.getDimSize(1), heads,
                                type.getDimSize(2) / heads};
  return tensor::ExpandShapeOp::create(
      b, loc, type.clone(shape), x,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// Per head, softmax(Q K^T / sqrt(D)) V on q, k, v [B, S, E] (already
/// projected), in `accType`; the heads merged back into [B, S, E].
Value attentionCore(OpBuilder &rewriter, Location loc, Value qProj,
                    Value kProj, Value vProj, int64_t H, bool causal,
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
  Value scores =
      generic(rewriter, loc, ValueRange{q, k}, {B, H, S, S}, accType, 0.0,
              {AffineMap::get(5, 0, {dim(0), dim(2), dim(1), dim(4)}, ctx),
               AffineMap::get(5, 0, {dim(0), dim(3), dim(1), dim(4)}, ctx),
               AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)},
              {utils::IteratorType::parallel, utils::IteratorType::parallel,
               utils::IteratorType::parallel, utils::IteratorType::parallel,
               utils::IteratorType::reduction},
              [&](OpBuilder &b, Location l, ValueRange a) {
                return Value(math::FmaOp::create(
                    b, l, convertScalar(b, l, a[0], accType),
                    convertScalar(b, l, a[1], accType), a[2]));
              });
  double scale = 1.0 / std::sqrt(double(D));
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  Value scaled = generic(
      rewriter, loc, scores, {B, H, S, S}, accType, std::nullopt, {id4, id4},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value c =
            arith::ConstantOp::create(b, l, b.getFloatAttr(accType, scale));
        Value sv = arith::MulFOp::create(b, l, a[0], c);
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
  Value context =
      generic(rewriter, loc, ValueRange{probs, v}, {B, S, H, D}, accType, 0.0,
              {AffineMap::get(5, 0, {dim(0), dim(2), dim(1), dim(4)}, ctx),
               AffineMap::get(5, 0, {dim(0), dim(4), dim(2), dim(3)}, ctx),
               AffineMap::get(5, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)},
              {utils::IteratorType::parallel, utils::IteratorType::parallel,
               utils::IteratorType::parallel, utils::IteratorType::parallel,
               utils::IteratorType::reduction},
              [&](OpBuilder &b, Location l, ValueRange a) {
                return Value(math::FmaOp::create(
                    b, l, a[0], convertScalar(b, l, a[1], accType), a[2]));
              });
  return tensor::CollapseShapeOp::create(
      rewriter, loc, context,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

struct AttentionLowering : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getType());
    Value x = adaptor.getInput();
    Type act = cast<ShapedType>(x.getType()).getElementType();
    int64_t B = type.getDimSize(0), S = type.getDimSize(1),
            E = type.getDimSize(2);
    auto project = [&](Value w) {
      return contraction(rewriter, loc, x, w, /*rhsBatched=*/false, *acc,
                         cast<ShapedType>(type));
    };
    // Projections: activations x weights, accumulated at accumulator
    // precision and kept there for the scores.
    Value merged = attentionCore(
        rewriter, loc, project(adaptor.getWq()), project(adaptor.getWk()),
        project(adaptor.getWv()), op.getNumHeads(), op.getCausal(), *acc);
    // The context, rounded to the activations precision for the output
    // projection.
    Value mergedAct =
        convertTensor(rewriter, loc, merged,
                      cast<ShapedType>(RankedTensorType::get({B, S, E}, act)));
    Value out = contraction(rewriter, loc, mergedAct, adaptor.getWo(),
                            /*rhsBatched=*/false, *acc, type);
    Value result = convertTensor(rewriter, loc, out, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// mix.attention_core (int8 attention between its quantized projections):
/// computes in the operands' element type.
struct AttentionCoreLowering : OpConversionPattern<AttentionCoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionCoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type acc = getElementTypeOrSelf(adaptor.getQ().getType());
    Value merged = attentionCore(rewriter, op.getLoc(), adaptor.getQ(),
                                 adaptor.getK(), adaptor.getV(),
                                 op.getNumHeads(), op.getCausal(), acc);
    rewriter.replaceOp(op, convertTensor(rewriter, op.getLoc(), merged,
                                         cast<ShapedType>(op.getType())));
    return success();
  }
};

struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
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
      return arith::ConstantOp::create(b, l, b.getFloatAttr(*acc, double(d)));
    };
    Value sum = generic(rewriter, loc, x, rowShape, *acc, 0.0, {id, row},
                        reduce, [&](OpBuilder &b, Location l, ValueRange a) {
                          return Value(arith::AddFOp::create(
                              b, l, a[1], convertScalar(b, l, a[0], *acc)));
                        });
    Value mean =
        generic(rewriter, loc, sum, rowShape, *acc, std::nullopt,
                {AffineMap::getMultiDimIdentityMap(rank - 1, ctx),
                 AffineMap::getMultiDimIdentityMap(rank - 1, ctx)},
                SmallVector<utils::IteratorType>(rank - 1,
                                                 utils::IteratorType::parallel),
                [&](OpBuilder &b, Location l, ValueRange a) {
                  return Value(arith::DivFOp::create(b, l, a[0], count(b, l)));
                });
    // Biased variance (divide by D), as PyTorch's LayerNorm.
    Value sq = generic(rewriter, loc, ValueRange{x, mean}, rowShape, *acc, 0.0,
                       {id, row, row}, reduce,
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         Value c = arith::SubFOp::create(
                             b, l, convertScalar(b, l, a[0], *acc), a[1]);
                         return Value(math::FmaOp::create(b, l, c, c, a[2]));
                       });
    double eps = op.getEpsilon().convertToDouble();
    Value result = generic(
        rewriter, loc,
        ValueRange{x, mean, sq, adaptor.getGamma(), adaptor.getBeta()},
        type.getShape(), type.getElementType(), std::nullopt,
        {id, row, row, last, last, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto cv = [&](Value v) { return convertScalar(b, l, v, *acc); };
          Value var = arith::DivFOp::create(b, l, a[2], count(b, l));
          Value epsilon =
              arith::ConstantOp::create(b, l, b.getFloatAttr(*acc, eps));
          Value denom = math::SqrtOp::create(
              b, l, arith::AddFOp::create(b, l, var, epsilon));
          Value norm = arith::DivFOp::create(
              b, l, arith::SubFOp::create(b, l, cv(a[0]), a[1]), denom);
          Value y = math::FmaOp::create(b, l, norm, cv(a[3]), cv(a[4]));
          return convertScalar(b, l, y, type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GeluLowering : OpConversionPattern<GeluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    bool approximate = op.getApproximate();
    Value result = elementwise(
        rewriter, op.getLoc(), adaptor.getInput(), type,
        [&](OpBuilder &b, Location l, ValueRange a) {
          // erf/tanh evaluate in at least f32 (libm has no f16 variants).
          Type in = a[0].getType();
          Type compute =
              cast<FloatType>(in).getWidth() < 32 ? b.getF32Type() : in;
          Value x = convertScalar(b, l, a[0], compute);
          auto c = [&](double v) {
            return arith::ConstantOp::create(b, l, b.getFloatAttr(compute, v));
          };
          Value inner;
          if (approximate) {
            // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
            Value x3 = arith::MulFOp::create(b, l, x,
                                             arith::MulFOp::create(b, l, x, x));
            Value t = math::FmaOp::create(b, l, c(0.044715), x3, x);
            inner = math::TanhOp::create(
                b, l, arith::MulFOp::create(b, l, c(std::sqrt(2.0 / M_PI)), t));
          } else {
            // 0.5 x (1 + erf(x / sqrt(2)))
            inner = math::ErfOp::create(
                b, l, arith::MulFOp::create(b, l, x, c(M_SQRT1_2)));
          }
          Value y = arith::MulFOp::create(
              b, l, arith::MulFOp::create(b, l, c(0.5), x),
              arith::AddFOp::create(b, l, c(1.0), inner));
          return convertScalar(b, l, y, type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> idx;
    for (int64_t i = 0; i + 1 < rank; ++i)
      idx.push_back(getAffineDimExpr(i, ctx));
    Value table = adaptor.getTable();
    int64_t rows = cast<ShapedType>(table.getType()).getDimSize(0);
    Value result = generic(
        rewriter, op.getLoc(), adaptor.getIndices(), type.getShape(),
        type.getElementType(), std::nullopt,
        {AffineMap::get(rank, 0, idx, ctx),
         AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          // Indices are clamped into the table: the reference interpreter
          // reports out-of-range ones; compiled code must never read outside.
          Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value maxRow = arith::ConstantIndexOp::create(b, l, rows - 1);
          i = arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, i, zero), maxRow);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          Value v = tensor::ExtractOp::create(b, l, table, ValueRange{i, col});
          return convertScalar(b, l, v, type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MseLossLowering : OpConversionPattern<MseLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MseLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> acc = accumulatorType(op);
    if (failed(acc))
      return failure();
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    auto inType = cast<ShapedType>(adaptor.getPrediction().getType());
    int64_t rank = inType.getRank();
    Value total = generic(
        rewriter, loc, ValueRange{adaptor.getPrediction(), adaptor.getTarget()},
        {}, *acc, 0.0,
        {AffineMap::getMultiDimIdentityMap(rank, ctx),
         AffineMap::getMultiDimIdentityMap(rank, ctx),
         AffineMap::get(rank, 0, {}, ctx)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::reduction),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value diff =
              arith::SubFOp::create(b, l, convertScalar(b, l, a[0], *acc),
                                    convertScalar(b, l, a[1], *acc));
          return Value(math::FmaOp::create(b, l, diff, diff, a[2]));
        });
    auto type = cast<ShapedType>(op.getType());
    double n = double(inType.getNumElements());
    Value result = divideByCount(rewriter, loc, total, n, type);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct WeightLowering : OpConversionPattern<WeightOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WeightOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ElementsAttr value = op.getValueAttr();
    if (!value)
      return op.emitOpError()
             << "external weight '" << op.getRefAttr().getValue()
             << "' must be loaded before lowering (mixc --weights)";
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(value));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

/// mix.network -> func.func with the same signature and C interface.
LogicalResult convertNetwork(NetworkOp network) {
  OpBuilder b(network);
  auto func = func::FuncOp::create(b, network.getLoc(), network.getSymName(),
                                   network.getFunctionType());
  func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  func.getBody().takeBody(network.getBody());
  auto ret = cast<ReturnOp>(func.getBody().front().getTerminator());
  b.setInsertionPoint(ret);
  func::ReturnOp::create(b, ret.getLoc(), ret.getValues());
  ret.erase();
  network.erase();
  return success();
}

struct ConvertMixToLinalgPass
    : public mix::impl::ConvertMixToLinalgPassBase<ConvertMixToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Record resolutions before the structure that decides them disappears.
    if (failed(resolvePrecisions(module)))
      return signalPassFailure();
    // Never emit integer code whose i32 sums could wrap.
    if (failed(checkIntegerAccumulation(module)))
      return signalPassFailure();
    inlineMixBlocks(module);

    ConversionTarget target(getContext());
    target.addLegalDialect<arith::ArithDialect, func::FuncDialect,
                           linalg::LinalgDialect, LLVM::LLVMDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addIllegalDialect<MixDialect>();
    target.addLegalOp<NetworkOp, ReturnOp>();
    RewritePatternSet patterns(&getContext());
    populateMixToLinalgConversionPatterns(patterns, checks);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    for (auto network : llvm::make_early_inc_range(module.getOps<NetworkOp>()))
      if (failed(convertNetwork(network)))
        return signalPassFailure();
  }
};
} // namespace

void mix::inlineMixBlocks(Operation *root) {
  SmallVector<BlockOp> blocks;
  root->walk<WalkOrder::PostOrder>([&](BlockOp b) { blocks.push_back(b); });
  IRRewriter rewriter(root->getContext());
  for (BlockOp block : blocks) {
    Block &body = block.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    // A yielded block argument stands for the block's input: the argument
    // itself disappears with the inlining.
    SmallVector<Value> results;
    for (Value v : yield.getValues()) {
      auto arg = dyn_cast<BlockArgument>(v);
      results.push_back(arg && arg.getOwner() == &body
                            ? block.getInputs()[arg.getArgNumber()]
                            : v);
    }
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, block, block.getInputs());
    rewriter.replaceOp(block, results);
  }
}

void mix::populateMixToLinalgConversionPatterns(RewritePatternSet &patterns,
                                                bool checks) {
  patterns.add<CastLowering>(patterns.getContext(), checks);
  patterns.add<
      ElementwiseLowering<ReluOp>, ElementwiseLowering<AddOp>,
      ElementwiseLowering<MulOp>, DenseLowering, MatmulLowering,
      SoftmaxLowering, WeightLowering, Conv2DLowering, BatchNormLowering,
      GlobalAvgPoolLowering, MaxPool2DLowering, ReshapeLowering<ReshapeOp>,
      ReshapeLowering<FlattenOp>, CrossEntropyLossLowering, AttentionLowering,
      AttentionCoreLowering,
      LayerNormLowering, GeluLowering, EmbeddingLowering, MseLossLowering>(
      patterns.getContext());
  populateQuantizedToLinalgConversionPatterns(patterns, checks);
}
