//===- FuseElementwise.cpp - mix-fuse-elementwise -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// MLIR's elementwise fusion of linalg.generic producers into their consumers,
// restricted to what keeps the checks and the microkernels intact.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixAttrNames.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mix {
#define GEN_PASS_DEF_MIXFUSEELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {

/// Whether `op` is an unchecked int8 rescale (mix.ukernel = "rescale"): a
/// mark that asks mix-use-microkernels only to tile the loop (and fuse a
/// relu), which a fused loop keeps.
bool isRescale(Operation *op) {
  auto kind = op->getAttrOfType<StringAttr>(attr::kUkernel);
  return kind && kind.getValue() == "rescale";
}

/// Whether `op` is a mix.dequantize loop ("dequantize"): the mark matters
/// only when a GEMM reads it (mix-pack-dequantized-weights, which checks
/// the body), so it may fuse with elementwise layers, the fused loop
/// unmarked.
bool isDequantize(Operation *op) {
  auto kind = op->getAttrOfType<StringAttr>(attr::kUkernel);
  return kind && kind.getValue() == "dequantize";
}

/// Whether `op` must keep its form: a run-time check inside, or a mark of
/// the lowering for mix-use-microkernels other than "rescale" and
/// "dequantize".
bool keepsItsForm(Operation *op) {
  if ((op->hasAttr(attr::kUkernel) && !isRescale(op) && !isDequantize(op)) ||
      op->hasAttr(attr::kUkernelBias))
    return true;
  bool checked = false;
  op->walk([&](func::CallOp call) {
    if (call.getCallee() == "mixrt_check_fail") {
      checked = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return checked;
}

/// Whether `op` is the rescale of a qdense GEMM (its sums from a loop marked
/// "gemm_s8"): mix-use-microkernels computes both in one call
/// (mixrt_ukernel_gemm_s8s8f32, a relu after them too), which a rescale
/// fused with the layers after it would no longer match.
bool rescalesGemm(Operation *op) {
  if (!isRescale(op) || op->getNumOperands() == 0)
    return false;
  auto sums = op->getOperand(0).getDefiningOp<linalg::GenericOp>();
  auto kind =
      sums ? sums->getAttrOfType<StringAttr>(attr::kUkernel) : StringAttr();
  return kind && kind.getValue() == "gemm_s8";
}

/// Whether the producer of `operand` may run inside its consumer: both
/// generics in the same block of a function (not in a loop such as an
/// im2col band), the producer read by nothing else and read element for
/// element (a permutation map: a broadcast scalar, e.g. a dynamic
/// quantization's scale, would be recomputed for every element), neither
/// keeping its form nor the rescale of a qdense GEMM, and MLIR's own
/// conditions.
bool mayFuse(OpOperand &operand) {
  auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand.getOwner());
  if (!producer || !consumer || !producer->hasOneUse() ||
      producer->getBlock() != consumer->getBlock() ||
      !isa<func::FuncOp>(consumer->getParentOp()) ||
      !consumer.isDpsInput(&operand) ||
      !consumer.getMatchingIndexingMap(&operand).isPermutation() ||
      keepsItsForm(producer) || keepsItsForm(consumer) ||
      rescalesGemm(producer))
    return false;
  return linalg::areElementwiseOpsFusable(&operand);
}

struct MixFuseElementwisePass
    : public mix::impl::MixFuseElementwisePassBase<MixFuseElementwisePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // In program order: a producer comes before its consumer, so when a
    // consumer is reached its producers have absorbed theirs. The consumer
    // then absorbs its producers one by one, the fused op taking its place;
    // every op is looked at a bounded number of times (linear in the
    // network).
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp generic : generics) {
      Operation *consumer = generic;
      for (bool fusedOne = true; fusedOne;) {
        fusedOne = false;
        for (OpOperand &operand : consumer->getOpOperands()) {
          if (!mayFuse(operand))
            continue;
          Operation *producer = operand.get().getDefiningOp();
          rewriter.setInsertionPoint(consumer);
          FailureOr<linalg::ElementwiseOpFusionResult> fused =
              linalg::fuseElementwiseOps(rewriter, &operand);
          if (failed(fused))
            continue;
          if (isRescale(producer) || isRescale(consumer))
            fused->fusedOp->setAttr(attr::kUkernel,
                                    rewriter.getStringAttr("rescale"));
          for (auto [original, replacement] : fused->replacements)
            rewriter.replaceUsesWithIf(original, replacement,
                                       [&](OpOperand &use) {
                                         return use.getOwner() != producer &&
                                                use.getOwner() != consumer;
                                       });
          rewriter.eraseOp(consumer);
          if (producer->use_empty())
            rewriter.eraseOp(producer);
          consumer = fused->fusedOp;
          ++numFused;
          fusedOne = true;
          break;
        }
      }
    }
  }
};

} // namespace
