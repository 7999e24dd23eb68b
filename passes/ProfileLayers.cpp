//===- ProfileLayers.cpp - mix-profile-layers -----------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Brackets each layer of the planned network functions by calls of
// mixc_profile_begin / mixc_profile_end (the per-layer profile of
// mix-bench --profile).
//
//===----------------------------------------------------------------------===//

#include "dialect/MixAttrNames.h"
#include "passes/LinalgBuilders.h"
#include "passes/NetworkSymbols.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mix {
#define GEN_PASS_DEF_MIXPROFILELAYERSPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {

constexpr StringLiteral kBegin = "mixc_profile_begin";
constexpr StringLiteral kEnd = "mixc_profile_end";

/// Ops that only name a value: no work of their own, part of no layer.
bool isBookkeeping(Operation &op) {
  return op.getNumRegions() == 0 && !isa<func::CallOp>(op) &&
         (op.hasTrait<OpTrait::ConstantLike>() ||
          isa<memref::ViewOp, memref::GetGlobalOp, memref::SubViewOp,
              memref::CollapseShapeOp, memref::ExpandShapeOp,
              memref::ReinterpretCastOp, LLVM::AddressOfOp>(op));
}

struct MixProfileLayersPass
    : public mix::impl::MixProfileLayersPassBase<MixProfileLayersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.getSymName().starts_with(symbols::kNetworkPrefix) &&
          !func.isExternal() && func->hasAttr(kMemoryPlanAttrName) &&
          func.getBody().hasOneBlock())
        instrument(func);
  }

  void instrument(func::FuncOp func) {
    ModuleOp module = getOperation();
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    OpBuilder b(module.getBodyRegion());
    auto type = b.getFunctionType({ptr}, {});
    for (StringRef name : {kBegin, kEnd})
      if (!module.lookupSymbol(name))
        func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();

    // The layers: runs of working ops of one source position.
    struct Layer {
      Operation *first, *last;
      std::string where;
    };
    SmallVector<Layer> layers;
    for (Operation &op : func.getBody().front().without_terminator()) {
      if (isBookkeeping(op))
        continue;
      std::string where = lowering::layerLabel(op.getLoc());
      if (where.empty())
        where = "<unknown location>";
      if (!layers.empty() && layers.back().where == where)
        layers.back().last = &op;
      else
        layers.push_back({&op, &op, where});
    }
    for (Layer &layer : layers) {
      Location loc = layer.first->getLoc();
      b.setInsertionPoint(layer.first);
      Value where = lowering::stringAddress(b, loc, module, layer.where);
      func::CallOp::create(b, loc, kBegin, TypeRange{}, ValueRange{where});
      b.setInsertionPointAfter(layer.last);
      func::CallOp::create(b, loc, kEnd, TypeRange{}, ValueRange{where});
      ++numLayers;
    }
  }
};

} // namespace
