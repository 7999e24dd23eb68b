//===- OutlineLayers.cpp - mix-outline-layers -----------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Splits each planned network function into one function per layer, with
// identical layers sharing one function: the compile time of LLVM grows
// with the size of the largest function, so a network of n layers must not
// be one function of n inlined layers.
//
//===----------------------------------------------------------------------===//

#include "passes/NetworkSymbols.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mix {
#define GEN_PASS_DEF_MIXOUTLINELAYERSPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;
using namespace mix::symbols;

namespace {

/// The source position of `loc` (the layer an op comes from), or null.
FileLineColLoc getPosition(Location loc) {
  return loc->findInstanceOf<FileLineColLoc>();
}

/// Scalar arithmetic constants are copied into a layer function (so LLVM
/// sees them); everything else it uses from outside becomes an argument,
/// the addresses of check messages (which name the layer's location)
/// included, so that layers differing only in those share a function.
bool isCopiedConstant(Operation *op) {
  auto constant = dyn_cast_or_null<arith::ConstantOp>(op);
  return constant && !isa<ShapedType>(constant.getType());
}

struct MixOutlineLayersPass
    : public mix::impl::MixOutlineLayersPassBase<MixOutlineLayersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    functions.clear();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.getSymName().starts_with(kNetworkPrefix) && !func.isExternal() &&
          func.getBody().hasOneBlock())
        outline(func, symbols);
  }

  /// The runs of `body` to outline: consecutive ops of one location, at
  /// least one with regions, none with results used later.
  SmallVector<SmallVector<Operation *>> findRuns(Block &body) {
    SmallVector<SmallVector<Operation *>> runs;
    SmallVector<Operation *> run;
    auto flush = [&] {
      if (llvm::any_of(run, [](Operation *op) { return op->getNumRegions(); }))
        runs.push_back(run);
      run.clear();
    };
    for (Operation &op : body.without_terminator()) {
      // Definitions the layers share (views, constants, globals) stay.
      bool compute = op.getNumRegions() > 0 || op.getNumResults() == 0;
      if (!compute) {
        flush();
        continue;
      }
      if (!run.empty() &&
          (getPosition(run.front()->getLoc()) != getPosition(op.getLoc()) ||
           !getPosition(op.getLoc())))
        flush();
      run.push_back(&op);
    }
    flush();
    // A run whose results are used outside it stays inline.
    llvm::erase_if(runs, [](ArrayRef<Operation *> r) {
      llvm::SmallPtrSet<Operation *, 8> inRun(r.begin(), r.end());
      for (Operation *op : r)
        for (Value v : op->getResults())
          for (Operation *user : v.getUsers())
            if (!inRun.contains(user))
              return true;
      return false;
    });
    return runs;
  }

  void outline(func::FuncOp func, SymbolTable &symbols) {
    Block &body = func.getBody().front();
    for (SmallVector<Operation *> &run : findRuns(body)) {
      // The values the run uses from outside, in order of first use.
      llvm::SetVector<Value> captured;
      llvm::SetVector<Operation *> constants;
      llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
      for (Operation *op : run)
        op->walk([&](Operation *nested) {
          for (Value v : nested->getOperands()) {
            Operation *def = v.getDefiningOp();
            if (def && (inRun.contains(def) ||
                        inRun.contains(body.findAncestorOpInBlock(*def))))
              continue;
            if (auto arg = dyn_cast<BlockArgument>(v))
              if (arg.getOwner() != &body)
                continue; // a block argument of a region inside the run
            if (isCopiedConstant(def))
              constants.insert(def);
            else
              captured.insert(v);
          }
        });

      // The layer function.
      OpBuilder builder(func);
      Location loc = run.front()->getLoc();
      SmallVector<Type> types;
      for (Value v : captured)
        types.push_back(v.getType());
      auto layer =
          func::FuncOp::create(builder, loc, "mixc_layer",
                               FunctionType::get(func.getContext(), types, {}));
      layer.setPrivate();
      Block *entry = layer.addEntryBlock();
      OpBuilder inner = OpBuilder::atBlockBegin(entry);
      IRMapping mapping;
      for (auto [v, arg] : llvm::zip(captured, entry->getArguments()))
        mapping.map(v, arg);
      for (Operation *c : constants)
        inner.clone(*c, mapping);
      for (Operation *op : run)
        inner.clone(*op, mapping);
      func::ReturnOp::create(inner, loc);

      // Identical to a function made earlier? Then share it.
      std::string key = printKey(layer);
      auto [it, inserted] = functions.try_emplace(key, func::FuncOp());
      if (inserted) {
        layer.setSymName(
            (kLayerPrefix + llvm::Twine(functions.size() - 1)).str());
        symbols.insert(layer);
        it->second = layer;
        ++numFunctions;
      } else {
        layer.erase();
        layer = it->second;
      }

      OpBuilder call(run.front());
      func::CallOp::create(call, loc, layer, captured.getArrayRef());
      for (Operation *op : llvm::reverse(run))
        op->erase();
      ++numLayers;
    }
  }

  /// The function without its name and locations: equal for layers that
  /// compute the same thing on the same types.
  static std::string printKey(func::FuncOp layer) {
    std::string text;
    llvm::raw_string_ostream os(text);
    OpPrintingFlags flags;
    flags.printGenericOpForm().useLocalScope();
    for (Operation &op : layer.getBody().front())
      op.print(os, flags);
    os << layer.getFunctionType();
    return text;
  }

  llvm::StringMap<func::FuncOp> functions;
};

} // namespace
