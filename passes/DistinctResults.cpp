//===- DistinctResults.cpp - mix-distinct-results -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A buffer returned twice by a function gets a copy of its own for each
// repeat, so that buffer-results-to-out-params gives every result its own
// out-parameter.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mix {
#define GEN_PASS_DEF_MIXDISTINCTRESULTSPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;

namespace {

struct MixDistinctResultsPass
    : public mix::impl::MixDistinctResultsPassBase<MixDistinctResultsPass> {
  void runOnOperation() override {
    // Private functions too: buffer-results-to-out-params rewrites every
    // function with a body.
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      WalkResult walked = func.walk([&](func::ReturnOp ret) {
        llvm::SmallPtrSet<Value, 4> seen;
        OpBuilder b(ret);
        for (OpOperand &operand : ret->getOpOperands()) {
          Value v = operand.get();
          auto type = dyn_cast<MemRefType>(v.getType());
          if (!type || seen.insert(v).second)
            continue;
          // A buffer of the same shape with the identity layout (the
          // out-parameter's), its dynamic sizes those of the value.
          auto copyType = MemRefType::get(
              type.getShape(), type.getElementType(),
              MemRefLayoutAttrInterface(), type.getMemorySpace());
          if (copyType != type &&
              !memref::CastOp::areCastCompatible(copyType, type)) {
            ret.emitOpError() << "returns a buffer twice with the layout "
                              << type << ", which no new buffer can be cast to";
            return WalkResult::interrupt();
          }
          SmallVector<Value> sizes;
          for (int64_t i = 0, e = type.getRank(); i < e; ++i)
            if (type.isDynamicDim(i))
              sizes.push_back(memref::DimOp::create(b, ret.getLoc(), v, i));
          Value copy =
              memref::AllocOp::create(b, ret.getLoc(), copyType, sizes);
          memref::CopyOp::create(b, ret.getLoc(), v, copy);
          if (copyType != type)
            copy = memref::CastOp::create(b, ret.getLoc(), type, copy);
          operand.set(copy);
          ++numCopied;
        }
        return WalkResult::advance();
      });
      if (walked.wasInterrupted())
        return signalPassFailure();
    }
  }
};

} // namespace
