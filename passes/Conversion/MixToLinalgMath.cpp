//===- MixToLinalgMath.cpp - elementwise math ops to linalg ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The elementwise math layers (sigmoid, tanh, hard_sigmoid, hard_swish,
// silu, leaky_relu, elu, clip, exp, log, sqrt, rsqrt, abs, neg, erf,
// reciprocal, floor, ceil, round, sign and the trigonometric and hyperbolic
// functions with their inverses; sub, div, pow, maximum, minimum with numpy
// broadcasting): one elementwise linalg.generic each; glu, one generic over its
// result reading both halves of the input.
//
// Every op evaluates in f32, or f64 when an operand is f64, and rounds once
// to its result type: libm has no f16/bf16 functions, and an f16 or bf16
// division or square root computed in f32 and rounded once equals the one
// computed in the narrow format (f32 keeps more than twice their
// significand bits plus two). With checks on, a finite value that rounds to
// infinity in the result type is reported like a checked cast's overflow
// (docs/precision.md, "Elementwise math"); ops whose results lie in [-pi, pi]
// cannot overflow and carry no check.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

/// Builds scalar arithmetic in one float type, one op per statement (the IR
/// must not depend on the order the host compiler evaluates arguments in).
struct Scalar {
  OpBuilder &b;
  Location loc;
  Type type;

  Value c(double v) const {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
  }
  Value add(Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value sub(Value x, Value y) const {
    return arith::SubFOp::create(b, loc, x, y);
  }
  Value mul(Value x, Value y) const {
    return arith::MulFOp::create(b, loc, x, y);
  }
  Value div(Value x, Value y) const {
    return arith::DivFOp::create(b, loc, x, y);
  }
  /// NaN-propagating max and min (IEEE 754-2019 maximum/minimum).
  Value max(Value x, Value y) const {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value min(Value x, Value y) const {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value exp(Value x) const { return math::ExpOp::create(b, loc, x); }
  /// x `pred` 0 ? x : otherwise.
  Value selectIf(arith::CmpFPredicate pred, Value x, Value otherwise) const {
    Value cond = arith::CmpFOp::create(b, loc, pred, x, c(0.0));
    return arith::SelectOp::create(b, loc, cond, x, otherwise);
  }
  /// max(0, min(1, alpha * x + beta)), ONNX's HardSigmoid.
  Value hardSigmoid(Value x, double alpha, double beta) const {
    Value scaled = mul(c(alpha), x);
    Value shifted = add(scaled, c(beta));
    Value upper = min(shifted, c(1.0));
    return max(upper, c(0.0));
  }
  /// 1 / (1 + exp(-x)): exp(-x) = inf gives 0, NaN stays NaN.
  Value sigmoid(Value x) const {
    Value negated = arith::NegFOp::create(b, loc, x);
    Value e = exp(negated);
    Value denominator = add(c(1.0), e);
    return div(c(1.0), denominator);
  }
};

/// How each op computes, from its operands converted to the compute type.
template <typename OpTy> Value compute(OpTy op, const Scalar &s, ValueRange x);

#define MIX_MATH(OP, BODY)                                                     \
  template <> Value compute(OP op, const Scalar &s, ValueRange x) {            \
    (void)op;                                                                  \
    BODY                                                                       \
  }
MIX_MATH(SigmoidOp, { return s.sigmoid(x[0]); })
MIX_MATH(TanhOp, { return math::TanhOp::create(s.b, s.loc, x[0]); })
MIX_MATH(HardSigmoidOp, {
  return s.hardSigmoid(x[0], op.getAlpha().convertToDouble(),
                       op.getBeta().convertToDouble());
})
MIX_MATH(HardSwishOp,
         { return s.mul(x[0], s.hardSigmoid(x[0], 1.0 / 6, 0.5)); })
MIX_MATH(SiluOp, { return s.mul(x[0], s.sigmoid(x[0])); })
MIX_MATH(LeakyReluOp, {
  Value scaled = s.mul(s.c(op.getAlpha().convertToDouble()), x[0]);
  return s.selectIf(arith::CmpFPredicate::OGE, x[0], scaled);
})
MIX_MATH(EluOp, {
  Value e = s.exp(x[0]);
  Value minusOne = s.sub(e, s.c(1.0));
  Value scaled = s.mul(s.c(op.getAlpha().convertToDouble()), minusOne);
  return s.selectIf(arith::CmpFPredicate::OGT, x[0], scaled);
})
MIX_MATH(ClipOp, {
  double lo = op.getMin().convertToDouble();
  double hi = op.getMax().convertToDouble();
  Value y = x[0];
  if (lo != -std::numeric_limits<double>::infinity())
    y = s.max(y, s.c(lo));
  if (hi != std::numeric_limits<double>::infinity())
    y = s.min(y, s.c(hi));
  return y;
})
MIX_MATH(ExpOp, { return s.exp(x[0]); })
MIX_MATH(LogOp, { return math::LogOp::create(s.b, s.loc, x[0]); })
MIX_MATH(SqrtOp, { return math::SqrtOp::create(s.b, s.loc, x[0]); })
MIX_MATH(RsqrtOp, {
  Value root = math::SqrtOp::create(s.b, s.loc, x[0]);
  return s.div(s.c(1.0), root);
})
MIX_MATH(AbsOp, { return math::AbsFOp::create(s.b, s.loc, x[0]); })
MIX_MATH(NegOp, { return arith::NegFOp::create(s.b, s.loc, x[0]); })
MIX_MATH(ErfOp, { return math::ErfOp::create(s.b, s.loc, x[0]); })
MIX_MATH(ReciprocalOp, { return s.div(s.c(1.0), x[0]); })
MIX_MATH(FloorOp, { return math::FloorOp::create(s.b, s.loc, x[0]); })
MIX_MATH(CeilOp, { return math::CeilOp::create(s.b, s.loc, x[0]); })
MIX_MATH(RoundOp, { return math::RoundEvenOp::create(s.b, s.loc, x[0]); })
// 1 above 0, -1 below, x itself otherwise (+-0 keep their sign, NaN stays).
MIX_MATH(SignOp, {
  Value zero = s.c(0.0);
  Value below =
      arith::CmpFOp::create(s.b, s.loc, arith::CmpFPredicate::OLT, x[0], zero);
  Value minusOne = arith::SelectOp::create(s.b, s.loc, below, s.c(-1.0), x[0]);
  Value above =
      arith::CmpFOp::create(s.b, s.loc, arith::CmpFPredicate::OGT, x[0], zero);
  return arith::SelectOp::create(s.b, s.loc, above, s.c(1.0), minusOne);
})
MIX_MATH(SinOp, { return math::SinOp::create(s.b, s.loc, x[0]); })
MIX_MATH(CosOp, { return math::CosOp::create(s.b, s.loc, x[0]); })
MIX_MATH(TanOp, { return math::TanOp::create(s.b, s.loc, x[0]); })
MIX_MATH(AsinOp, { return math::AsinOp::create(s.b, s.loc, x[0]); })
MIX_MATH(AcosOp, { return math::AcosOp::create(s.b, s.loc, x[0]); })
MIX_MATH(AtanOp, { return math::AtanOp::create(s.b, s.loc, x[0]); })
MIX_MATH(SinhOp, { return math::SinhOp::create(s.b, s.loc, x[0]); })
MIX_MATH(CoshOp, { return math::CoshOp::create(s.b, s.loc, x[0]); })
MIX_MATH(AsinhOp, { return math::AsinhOp::create(s.b, s.loc, x[0]); })
MIX_MATH(AcoshOp, { return math::AcoshOp::create(s.b, s.loc, x[0]); })
MIX_MATH(AtanhOp, { return math::AtanhOp::create(s.b, s.loc, x[0]); })
MIX_MATH(SubOp, { return s.sub(x[0], x[1]); })
MIX_MATH(DivOp, { return s.div(x[0], x[1]); })
MIX_MATH(PowOp, { return math::PowFOp::create(s.b, s.loc, x[0], x[1]); })
MIX_MATH(MaximumOp, { return s.max(x[0], x[1]); })
MIX_MATH(MinimumOp, { return s.min(x[0], x[1]); })
#undef MIX_MATH

/// Ops whose every result lies in [-pi, pi] (sigmoid ... erf, sign, sin, cos,
/// asin, acos, atan): rounding cannot overflow.
template <typename OpTy> constexpr bool kBounded = false;
template <> constexpr bool kBounded<SigmoidOp> = true;
template <> constexpr bool kBounded<TanhOp> = true;
template <> constexpr bool kBounded<HardSigmoidOp> = true;
template <> constexpr bool kBounded<ErfOp> = true;
template <> constexpr bool kBounded<SignOp> = true;
template <> constexpr bool kBounded<SinOp> = true;
template <> constexpr bool kBounded<CosOp> = true;
template <> constexpr bool kBounded<AsinOp> = true;
template <> constexpr bool kBounded<AcosOp> = true;
template <> constexpr bool kBounded<AtanOp> = true;

/// f32, or f64 when some operand is f64.
Type computeType(OpBuilder &b, ValueRange operands) {
  for (Value v : operands)
    if (getElementTypeOrSelf(v.getType()).isF64())
      return b.getF64Type();
  return b.getF32Type();
}

template <typename OpTy> struct MathLowering : MixLoweringPattern<OpTy> {
  using MixLoweringPattern<OpTy>::MixLoweringPattern;
  using OpAdaptor = typename MixLoweringPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    Type to = type.getElementType();
    Type wide = computeType(rewriter, adaptor.getOperands());
    bool check =
        !kBounded<OpTy> && this->options.checks &&
        cast<FloatType>(to).getWidth() < cast<FloatType>(wide).getWidth();
    std::string what;
    llvm::raw_string_ostream(what)
        << op->getName().stripDialect() << " in " << to << " overflows";
    Value result = elementwise(
        rewriter, op.getLoc(), adaptor.getOperands(), type,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> wideArgs;
          for (Value a : args)
            wideArgs.push_back(convertScalar(b, loc, a, wide));
          Value y = compute(op, Scalar{b, loc, wide}, wideArgs);
          return roundChecked(b, loc, y, to, check, op, what, type.getShape());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// glu: one generic over the result; each element reads a = input[..., i,
/// ...] and b = input[..., i + H, ...] along the axis (H the result's size
/// there), and computes a * sigmoid(b) in the compute type, rounded once
/// (checked only when the result is narrower than the input).
struct GluLowering : MixLoweringPattern<GluOp> {
  using MixLoweringPattern::MixLoweringPattern;

  LogicalResult
  matchAndRewrite(GluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    Type to = type.getElementType();
    Value input = adaptor.getInput();
    Type wide = computeType(rewriter, input);
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis()); // I64Attr: uint64_t
    if (axis < 0)
      axis += rank;
    int64_t half = type.getDimSize(axis);
    // |a * sigmoid(b)| <= |a| (f32 rounding is monotone, sigmoid <= 1): the
    // result overflows only when its format is narrower than the input's.
    auto inType = cast<FloatType>(getElementTypeOrSelf(input.getType()));
    bool check =
        options.checks && cast<FloatType>(to).getWidth() < inType.getWidth();
    std::string what;
    llvm::raw_string_ostream(what) << "glu in " << to << " overflows";
    Value result = generic(
        rewriter, op.getLoc(), ValueRange{}, type.getShape(), to, std::nullopt,
        {AffineMap::getMultiDimIdentityMap(rank, getContext())},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange) {
          SmallVector<Value> index;
          for (int64_t d = 0; d < rank; ++d)
            index.push_back(linalg::IndexOp::create(b, loc, d));
          Value a = tensor::ExtractOp::create(b, loc, input, index);
          index[axis] = arith::AddIOp::create(
              b, loc, index[axis],
              arith::ConstantIndexOp::create(b, loc, half));
          Value gate = tensor::ExtractOp::create(b, loc, input, index);
          Scalar s{b, loc, wide};
          Value wa = convertScalar(b, loc, a, wide);
          Value wg = convertScalar(b, loc, gate, wide);
          Value y = s.mul(wa, s.sigmoid(wg));
          return roundChecked(b, loc, y, to, check, op, what, type.getShape());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mix::lowering::populateMathPatterns(RewritePatternSet &patterns,
                                         const MixToLinalgOptions &options) {
  patterns
      .add<MathLowering<SigmoidOp>, MathLowering<TanhOp>,
           MathLowering<HardSigmoidOp>, MathLowering<HardSwishOp>,
           MathLowering<SiluOp>, MathLowering<LeakyReluOp>, MathLowering<EluOp>,
           MathLowering<ClipOp>, MathLowering<ExpOp>, MathLowering<LogOp>,
           MathLowering<SqrtOp>, MathLowering<RsqrtOp>, MathLowering<AbsOp>,
           MathLowering<NegOp>, MathLowering<ErfOp>, MathLowering<ReciprocalOp>,
           MathLowering<FloorOp>, MathLowering<CeilOp>, MathLowering<RoundOp>,
           MathLowering<SignOp>, MathLowering<SinOp>, MathLowering<CosOp>,
           MathLowering<TanOp>, MathLowering<AsinOp>, MathLowering<AcosOp>,
           MathLowering<AtanOp>, MathLowering<SinhOp>, MathLowering<CoshOp>,
           MathLowering<AsinhOp>, MathLowering<AcoshOp>, MathLowering<AtanhOp>,
           MathLowering<SubOp>, MathLowering<DivOp>, MathLowering<PowOp>,
           MathLowering<MaximumOp>, MathLowering<MinimumOp>, GluLowering>(
          patterns.getContext(), options);
}
