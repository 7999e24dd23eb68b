//===- OrderConstants.cpp - mix-order-constants ---------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Names and orders the constant globals that bufferization creates
// (`__constant_<shape>[_<n>]`) by their first use in the module, so that
// the same model always compiles to the same bytes.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mix {
#define GEN_PASS_DEF_MIXORDERCONSTANTSPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kPrefix = "__constant_";

/// `__constant_2xf32_4` -> `__constant_2xf32` (a shape never ends in `_N`).
llvm::StringRef baseName(llvm::StringRef name) {
  size_t under = name.rfind('_');
  if (under != llvm::StringRef::npos && under > kPrefix.size() &&
      under + 1 < name.size() &&
      llvm::all_of(name.drop_front(under + 1), llvm::isDigit))
    return name.take_front(under);
  return name;
}

struct MixOrderConstantsPass
    : public mix::impl::MixOrderConstantsPassBase<MixOrderConstantsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The globals to order: private constants named by bufferization.
    llvm::StringMap<memref::GlobalOp> candidates;
    for (auto global : module.getOps<memref::GlobalOp>())
      if (global.getSymName().starts_with(kPrefix) && global.isPrivate() &&
          global.getConstant())
        candidates[global.getSymName()] = global;
    if (candidates.empty())
      return;
    // First use, in the order of the module's operations.
    llvm::MapVector<Operation *, bool> order;
    module.walk([&](memref::GetGlobalOp get) {
      auto it = candidates.find(get.getName());
      if (it != candidates.end())
        order.insert({it->second.getOperation(), true});
    });
    // Unused ones keep their relative order, last.
    for (auto global : module.getOps<memref::GlobalOp>())
      if (candidates.count(global.getSymName()))
        order.insert({global.getOperation(), true});
    // Temporary names first (no clash with a final name), then
    // `<base>`, `<base>_1`, ... per base in that order.
    SmallVector<std::pair<memref::GlobalOp, std::string>> renames;
    llvm::StringMap<unsigned> perBase;
    unsigned index = 0;
    for (auto &entry : order) {
      auto global = cast<memref::GlobalOp>(entry.first);
      std::string base = baseName(global.getSymName()).str();
      unsigned n = perBase[base]++;
      renames.push_back(
          {global, n == 0 ? base : base + "_" + std::to_string(n)});
      std::string temporary = "__mix_order_" + std::to_string(index++);
      if (failed(SymbolTable::replaceAllSymbolUses(
              global, StringAttr::get(&getContext(), temporary), module)))
        return signalPassFailure();
      global.setSymName(temporary);
    }
    // Placed in that order at the top of the module.
    Block &body = module.getBodyRegion().front();
    Operation *anchor = &body.front();
    for (auto &[global, name] : renames) {
      if (failed(SymbolTable::replaceAllSymbolUses(
              global, StringAttr::get(&getContext(), name), module)))
        return signalPassFailure();
      global.setSymName(name);
      if (global.getOperation() != anchor)
        global->moveBefore(anchor);
      else
        anchor = global->getNextNode();
    }
  }
};

} // namespace
