//===- ApproximateMath.cpp - mix-approximate-math -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// f32 erf as a vectorizable rational approximation (MLIR's own) instead of
// one scalar libm call per element.
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

struct MixApproximateMathPass
    : public mix::impl::MixApproximateMathPassBase<MixApproximateMathPass> {
  void runOnOperation() override {
    // The approximation gives +0 for erf(-0): the sign of x is copied onto
    // the result (erf is odd, and a NaN stays a NaN), which libm's erff
    // gives too.
    SmallVector<math::ErfOp> erfs;
    getOperation()->walk([&](math::ErfOp op) {
      if (getElementTypeOrSelf(op.getType()).isF32())
        erfs.push_back(op);
    });
    for (math::ErfOp op : erfs) {
      OpBuilder b(op);
      b.setInsertionPointAfter(op);
      auto sign = math::CopySignOp::create(b, op.getLoc(), op.getResult(),
                                           op.getOperand());
      op.getResult().replaceAllUsesExcept(sign.getResult(), sign);
      ++numApproximated;
    }
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateErfPattern(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
