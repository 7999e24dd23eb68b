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

bool isF32(Operation *op) {
  return getElementTypeOrSelf(op->getResult(0).getType()).isF32();
}

struct MixApproximateMathPass
    : public mix::impl::MixApproximateMathPassBase<MixApproximateMathPass> {
  void runOnOperation() override {
    // tanh and exp need nothing more: the approximations give +-1 for
    // tanh(+-inf) and the sign of a zero, exp(-inf) = +0, exp(+inf) = +inf,
    // and NaN for NaN.
    SmallVector<Operation *> erfs;
    unsigned others = 0;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::ErfOp>(op) && isF32(op))
        erfs.push_back(op);
      else if (isa<math::TanhOp, math::ExpOp>(op) && isF32(op))
        ++others;
    });
    // The erf approximation gives +0 for erf(-0): the sign of x is copied
    // onto the result (erf is odd, and a NaN stays a NaN), which libm's
    // erff gives too.
    for (Operation *op : erfs) {
      OpBuilder b(op);
      b.setInsertionPointAfter(op);
      auto sign = math::CopySignOp::create(b, op->getLoc(), op->getResult(0),
                                           op->getOperand(0));
      op->getResult(0).replaceAllUsesExcept(sign.getResult(), sign);
    }
    numApproximated += erfs.size() + others;
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
