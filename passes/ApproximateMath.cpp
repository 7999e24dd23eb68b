//===- ApproximateMath.cpp - mix-approximate-math -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// f32 erf, tanh and exp as vectorizable approximations (MLIR's own) instead
// of one scalar libm call per element.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mix {
#define GEN_PASS_DEF_MIXAPPROXIMATEMATHPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;

namespace {

/// Whether `op`'s result is f32 or a vector or tensor of f32.
bool isF32(Operation *op) {
  return op->getNumResults() == 1 &&
         getElementTypeOrSelf(op->getResult(0).getType()).isF32();
}

/// Puts `wrap(b, loc, x, result)` (x the operand, ops at `op`'s location)
/// in place of every use of `op`'s result: a fix-up the approximation of
/// `op` will then feed.
void wrapResult(
    Operation *op,
    llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> wrap) {
  OpBuilder b(op);
  b.setInsertionPointAfter(op);
  Value wrapped = wrap(b, op->getLoc(), op->getOperand(0), op->getResult(0));
  op->getResult(0).replaceAllUsesExcept(wrapped, wrapped.getDefiningOp());
}

/// f32 erf, tanh and exp through MLIR's approximations (Passes.td).
struct MixApproximateMathPass
    : public mix::impl::MixApproximateMathPassBase<MixApproximateMathPass> {
  void runOnOperation() override {
    // tanh needs nothing more: the approximation gives +-1 for tanh(+-inf),
    // keeps the sign of a zero and gives NaN for NaN. So does exp (+0 for
    // -inf, +inf for +inf), but a NaN reaches an f32-to-i32 conversion in
    // it, which LLVM leaves undefined: NaN is selected through after it.
    SmallVector<Operation *> erfs, exps;
    unsigned tanhs = 0;
    getOperation()->walk([&](Operation *op) {
      if (!isF32(op))
        return;
      if (isa<math::ErfOp>(op))
        erfs.push_back(op);
      else if (isa<math::ExpOp>(op))
        exps.push_back(op);
      else if (isa<math::TanhOp>(op))
        ++tanhs;
    });
    for (Operation *op : exps)
      wrapResult(op, [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        Value isNan =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
        return arith::SelectOp::create(b, loc, isNan, x, y);
      });
    // The erf approximation gives +0 for erf(-0): the sign of x is copied
    // onto the result (erf is odd, and a NaN stays a NaN), which libm's
    // erff gives too.
    for (Operation *op : erfs)
      wrapResult(op, [](OpBuilder &b, Location loc, Value x, Value y) -> Value {
        return math::CopySignOp::create(b, loc, y, x);
      });
    numApproximated += erfs.size() + exps.size() + tanhs;
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateErfPattern(patterns);
    populatePolynomialApproximateTanhPattern(patterns);
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return name == "math.exp"; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
