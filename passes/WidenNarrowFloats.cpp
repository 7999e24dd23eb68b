//===- WidenNarrowFloats.cpp - mix-widen-narrow-floats --------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// f16 and bf16 arithmetic computed in f32 with one rounding per operation.
// LLVM legalizes arithmetic on these types operation by operation on CPUs
// without it (x86 before AVX512-FP16 / AVX512-BF16): vectors of bf16 are
// split into scalars rounded by a `__truncsfbf2` call each (or by
// `vcvtneps2bf16`, which flushes subnormals), and an f16 `exp` is
// vectorized and then split into one `expf` call per lane. Widening before
// LLVM gives it plain f32 code with the same results.
//
//===----------------------------------------------------------------------===//

#include "passes/WidenNarrowFloats.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mix {
#define GEN_PASS_DEF_MIXWIDENNARROWFLOATSPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {

/// A scalar 16-bit float type (f16 or bf16).
bool isNarrow(Type type) { return type.isF16() || type.isBF16(); }

/// What the pass does with an operation.
enum class Widening {
  none,       ///< left alone
  signBits,   ///< negf, absf, copysign: bit operations on the pattern
  operands,   ///< cmpf, fptosi, fptoui: read the exact f32 extension
  arithmetic, ///< computed in f32 (f64 for an f16 fma), rounded once
};

Widening classify(Operation *op) {
  if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
          op->getDialect()) ||
      op->getNumRegions() != 0 || op->getNumResults() == 0)
    return Widening::none;
  if (isa<arith::NegFOp, math::AbsFOp, math::CopySignOp>(op))
    return isNarrow(op->getResult(0).getType()) ? Widening::signBits
                                                : Widening::none;
  if (isa<arith::CmpFOp, arith::FPToSIOp, arith::FPToUIOp>(op))
    return llvm::any_of(op->getOperandTypes(), isNarrow) ? Widening::operands
                                                         : Widening::none;
  if (isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp, arith::ExtFOp,
          arith::TruncFOp>(op))
    return Widening::none;
  Type type = op->getResult(0).getType();
  auto isType = [&](Type t) { return t == type; };
  if (!isNarrow(type) || !llvm::all_of(op->getResultTypes(), isType) ||
      !llvm::all_of(op->getOperandTypes(), isType))
    return Widening::none;
  return Widening::arithmetic;
}

/// `v` extended exactly to `wide`.
Value extend(PatternRewriter &rewriter, Location loc, Value v, Type wide) {
  return arith::ExtFOp::create(rewriter, loc, wide, v);
}

/// negf, absf and copysign on the bits of the 16-bit pattern, as IEEE 754
/// defines these sign operations (a NaN keeps its payload and is not
/// quieted).
struct NarrowSignOpPattern : RewritePattern {
  NarrowSignOpPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (classify(op) != Widening::signBits)
      return rewriter.notifyMatchFailure(op, "not a 16-bit float sign op");
    Location loc = op->getLoc();
    Type type = op->getResult(0).getType();
    Type i16 = rewriter.getI16Type();
    auto bits = [&](Value v) {
      return arith::BitcastOp::create(rewriter, loc, i16, v);
    };
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, i16, v);
    };
    Value x = bits(op->getOperand(0));
    Value result;
    if (isa<arith::NegFOp>(op)) {
      Value sign = constant(0x8000);
      result = arith::XOrIOp::create(rewriter, loc, x, sign);
    } else {
      Value magnitudeMask = constant(0x7FFF);
      Value magnitude = arith::AndIOp::create(rewriter, loc, x, magnitudeMask);
      if (isa<math::AbsFOp>(op)) {
        result = magnitude;
      } else {
        Value y = bits(op->getOperand(1));
        Value signMask = constant(0x8000);
        Value sign = arith::AndIOp::create(rewriter, loc, y, signMask);
        result = arith::OrIOp::create(rewriter, loc, magnitude, sign);
      }
    }
    rewriter.replaceOp(
        op, arith::BitcastOp::create(rewriter, loc, type, result).getResult());
    return success();
  }
};

/// cmpf, fptosi and fptoui of 16-bit floats read the exact f32 extension.
struct NarrowOperandPattern : RewritePattern {
  NarrowOperandPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (classify(op) != Widening::operands)
      return rewriter.notifyMatchFailure(op, "no 16-bit float operand");
    Type f32 = rewriter.getF32Type();
    rewriter.modifyOpInPlace(op, [&] {
      for (OpOperand &operand : op->getOpOperands())
        if (isNarrow(operand.get().getType()))
          operand.set(extend(rewriter, op->getLoc(), operand.get(), f32));
    });
    return success();
  }
};

/// Every other arith/math operation whose operands and results all have one
/// 16-bit float type: the same operation on the f32 extensions (f64 for an
/// f16 fma, as LLVM computes it), then one conversion back with mixc's
/// rounding.
struct NarrowArithmeticPattern : RewritePattern {
  NarrowArithmeticPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (classify(op) != Widening::arithmetic)
      return rewriter.notifyMatchFailure(
          op, "not an arith/math computation on one 16-bit float type");
    Type type = op->getResult(0).getType();

    Location loc = op->getLoc();
    Type wide = isa<math::FmaOp>(op) && type.isF16()
                    ? Type(rewriter.getF64Type())
                    : Type(rewriter.getF32Type());
    IRMapping operands;
    for (Value operand : op->getOperands())
      if (!operands.contains(operand))
        operands.map(operand, extend(rewriter, loc, operand, wide));
    Operation *widened = rewriter.clone(*op, operands);
    for (OpResult result : widened->getResults())
      result.setType(wide);
    SmallVector<Value> narrowed;
    for (Value result : widened->getResults())
      narrowed.push_back(lowering::convertScalar(rewriter, loc, result, type));
    rewriter.replaceOp(op, narrowed);
    return success();
  }
};

struct MixWidenNarrowFloatsPass
    : public mix::impl::MixWidenNarrowFloatsPassBase<MixWidenNarrowFloatsPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (classify(op) != Widening::none)
        ++numWidened;
    });
    RewritePatternSet patterns(&getContext());
    populateWidenNarrowFloatsPatterns(patterns);
    // Only these rewrites: no folding of the rest of the module.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace

void mix::populateWidenNarrowFloatsPatterns(RewritePatternSet &patterns) {
  patterns
      .add<NarrowSignOpPattern, NarrowOperandPattern, NarrowArithmeticPattern>(
          patterns.getContext());
}
