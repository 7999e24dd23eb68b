//===- SpecializeBatch.cpp - mix-specialize-batch -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/SpecializeBatch.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mix {
#define GEN_PASS_DEF_MIXSPECIALIZEBATCHPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

/// `type` with a leading `?` replaced by `batch`; other types unchanged.
static Type specializeType(Type type, int64_t batch) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() == 0 || !tensor.isDynamicDim(0))
    return type;
  SmallVector<int64_t> shape(tensor.getShape());
  shape[0] = batch;
  return tensor.clone(shape);
}

bool mix::hasDynamicBatch(NetworkOp network) {
  return llvm::any_of(network.getArgumentTypes(), [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getRank() > 0 && tensor.isDynamicDim(0);
  });
}

void mix::specializeBatch(NetworkOp network, int64_t batch) {
  assert(batch >= 1 && "a batch has at least one sample");
  if (!hasDynamicBatch(network))
    return;
  auto specializeValues = [&](auto &&values) {
    for (Value value : values)
      value.setType(specializeType(value.getType(), batch));
  };
  network.getBody().walk([&](Operation *op) {
    specializeValues(op->getResults());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        specializeValues(block.getArguments());
  });
  specializeValues(network.getBody().getArguments());
  FunctionType type = network.getFunctionType();
  SmallVector<Type> inputs, results;
  for (Type t : type.getInputs())
    inputs.push_back(specializeType(t, batch));
  for (Type t : type.getResults())
    results.push_back(specializeType(t, batch));
  network.setFunctionType(
      FunctionType::get(network.getContext(), inputs, results));
}

namespace {

struct MixSpecializeBatchPass
    : public mix::impl::MixSpecializeBatchPassBase<MixSpecializeBatchPass> {
  using MixSpecializeBatchPassBase::MixSpecializeBatchPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (batch < 1) {
      module.emitError() << "mix-specialize-batch: batch must be >= 1, got "
                         << static_cast<int64_t>(batch);
      return signalPassFailure();
    }
    bool changed = false;
    for (NetworkOp network : module.getOps<NetworkOp>()) {
      if (!hasDynamicBatch(network))
        continue;
      specializeBatch(network, batch);
      ++numNetworks;
      changed = true;
    }
    // Nothing to do is the common case: keep what earlier passes computed
    // (the precision analysis).
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
