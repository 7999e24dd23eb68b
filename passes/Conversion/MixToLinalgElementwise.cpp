//===- MixToLinalgElementwise.cpp - elementwise ops to linalg -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mix.cast, relu, add, mul and gelu: one elementwise linalg.generic each
// (numpy broadcasting), computing in the operands' type and converting once
// to the result's. Checked casts report an overflow at run time.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "dialect/MixAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

/// True when some finite value of `from` rounds to infinity in `to`: a
/// wider float, or an i32/i64 converted to f16.
bool canOverflow(Type from, Type to, bool isUnsigned) {
  auto largest = [](Type t) {
    return APFloat::getLargest(cast<FloatType>(t).getFloatSemantics())
        .convertToDouble();
  };
  if (auto integer = dyn_cast<IntegerType>(from))
    return !isUnsigned && integer.getWidth() > 8 &&
           largest(to) < std::ldexp(1.0, integer.getWidth() - 1);
  return largest(to) < largest(from);
}

struct CastLowering : MixLoweringPattern<CastOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    Type to = type.getElementType();
    Type from = getElementTypeOrSelf(op.getInput().getType());
    bool isUnsigned = op.getIsUnsigned();
    bool check =
        options.checks && op.getChecked() && canOverflow(from, to, isUnsigned);
    std::string what;
    llvm::raw_string_ostream(what)
        << "checked cast from " << (isUnsigned ? "unsigned " : "") << from
        << " to " << to << " overflows";
    if (isa<IntegerType>(from)) {
      // An integer overflows only f16 (i32, i64), whose conversion goes
      // through the f32 value (exact where the result is finite).
      Value result = elementwise(
          rewriter, op.getLoc(), adaptor.getInput(), type,
          [&](OpBuilder &b, Location loc, ValueRange args) {
            if (!check)
              return integerToFloat(b, loc, args[0], to, isUnsigned);
            Value wide =
                arith::SIToFPOp::create(b, loc, b.getF32Type(), args[0]);
            return roundChecked(b, loc, wide, to, check, op, what,
                                type.getShape());
          });
      rewriter.replaceOp(op, result);
      return success();
    }
    // Overflow is detected in a type that holds both sides exactly.
    Type wide = cast<FloatType>(from).getWidth() < 32
                    ? Type(rewriter.getF32Type())
                    : from;
    Value result = elementwise(
        rewriter, op.getLoc(), adaptor.getInput(), type,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          if (!check)
            return convertScalar(b, loc, args[0], to);
          // `wide` holds the input exactly: rounding it to `to` is
          // rounding the input.
          return roundChecked(b, loc, convertScalar(b, loc, args[0], wide), to,
                              check, op, what, type.getShape());
        });
    // A checked f32 -> f16/bf16 cast: mix-use-microkernels runs this loop
    // only when mixrt_ukernel_range_f32 finds a value it could overflow
    // on, and a copy without the check (vectorized) otherwise.
    if (check && from.isF32() && (to.isF16() || to.isBF16()))
      result.getDefiningOp()->setAttr(attr::kUkernel,
                                      rewriter.getStringAttr("checked_narrow"));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// relu, add, mul: compute in the operands' type, convert to the result's.
template <typename OpTy> struct ElementwiseLowering : MixLoweringPattern<OpTy> {
  using MixLoweringPattern<OpTy>::MixLoweringPattern;
  using OpAdaptor = typename MixLoweringPattern<OpTy>::OpAdaptor;

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

struct GeluLowering : MixLoweringPattern<GeluOp> {
  using MixLoweringPattern::MixLoweringPattern;
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
          // One operand op per statement (host-compiler independent IR).
          Value onePlus = arith::AddFOp::create(b, l, c(1.0), inner);
          Value half = arith::MulFOp::create(b, l, c(0.5), x);
          Value y = arith::MulFOp::create(b, l, half, onePlus);
          return convertScalar(b, l, y, type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mix::lowering::populateElementwisePatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<CastLowering, ElementwiseLowering<ReluOp>,
               ElementwiseLowering<AddOp>, ElementwiseLowering<MulOp>,
               GeluLowering>(patterns.getContext(), options);
}
