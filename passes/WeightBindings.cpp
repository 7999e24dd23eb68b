//===- WeightBindings.cpp - weights through the bindings of blocks --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/WeightBindings.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mix;

WeightOp mix::getBoundWeight(Value v) {
  while (auto arg = dyn_cast<BlockArgument>(v)) {
    auto block = dyn_cast<BlockOp>(arg.getOwner()->getParentOp());
    if (!block)
      return {};
    v = block.getInputs()[arg.getArgNumber()];
  }
  auto weight = v.getDefiningOp<WeightOp>();
  if (!weight || !isa_and_nonnull<DenseFPElementsAttr>(weight.getValueAttr()))
    return {};
  return weight;
}

void mix::dropUnusedBindings(ArrayRef<Value> values) {
  // One step at a time: only the value just taken is erased, so no value
  // still in the worklist is ever a dangling one.
  llvm::SetVector<Value> work(values.begin(), values.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v.use_empty())
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto block = dyn_cast<BlockOp>(arg.getOwner()->getParentOp());
      if (!block)
        continue;
      unsigned index = arg.getArgNumber();
      Value bound = block.getInputs()[index];
      block.getInputsMutable().erase(index);
      arg.getOwner()->eraseArgument(index);
      work.insert(bound);
    } else if (auto weight = v.getDefiningOp<WeightOp>()) {
      weight.erase();
    }
  }
}
