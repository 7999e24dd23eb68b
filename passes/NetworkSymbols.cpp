//===- NetworkSymbols.cpp - mix-mangle/export-network-symbols -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// User-chosen network names never become plain symbols of the lowered
// module: during the LLVM phase a network is `@mixc_net_NAME`, so the C
// library functions the lowering declares (malloc, free, logf, ...) cannot
// collide with it, and only its C interface `_mlir_ciface_NAME` is exported.
//
//===----------------------------------------------------------------------===//

#include "passes/NetworkSymbols.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mix {
#define GEN_PASS_DEF_MIXMANGLENETWORKSYMBOLSPASS
#define GEN_PASS_DEF_MIXEXPORTNETWORKSYMBOLSPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;
using namespace mix::symbols;

namespace {

/// Renames `op` to `newName` in `symbols`, with every use in `module`.
LogicalResult renameSymbol(SymbolTable &symbols, Operation *op,
                           StringRef newName) {
  if (Operation *existing = symbols.lookup(newName)) {
    InFlightDiagnostic diag =
        op->emitError() << "cannot rename @" << SymbolTable::getSymbolName(op)
                        << " to @" << newName << ": the name is taken";
    diag.attachNote(existing->getLoc()) << "by this symbol";
    return diag;
  }
  return symbols.rename(op, StringAttr::get(op->getContext(), newName));
}

struct MixMangleNetworkSymbolsPass
    : public mix::impl::MixMangleNetworkSymbolsPassBase<
          MixMangleNetworkSymbolsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.isPublic() && !func.isExternal() &&
          func->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName()) &&
          failed(renameSymbol(symbols, func,
                              (kNetworkPrefix + func.getSymName()).str())))
        return signalPassFailure();
  }
};

struct MixExportNetworkSymbolsPass
    : public mix::impl::MixExportNetworkSymbolsPassBase<
          MixExportNetworkSymbolsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    std::string mangled = (kCInterfacePrefix + kConvenienceEntryPrefix).str();
    for (auto func :
         llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>())) {
      StringRef name = func.getSymName();
      // Layer functions (mix-outline-layers) stay separate functions,
      // internal to the object (every object has its mixc_layer_0).
      if (name.starts_with(kLayerPrefix) && !func.isExternal()) {
        func.setNoInline(true);
        func.setLinkage(LLVM::Linkage::Internal);
      }
      if (!name.starts_with(mangled) || func.isExternal())
        continue;
      std::string exported =
          (kCInterfacePrefix + name.drop_front(mangled.size())).str();
      if (failed(renameSymbol(symbols, func, exported)))
        return signalPassFailure();
    }
  }
};

} // namespace
