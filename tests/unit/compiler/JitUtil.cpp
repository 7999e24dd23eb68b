//===- JitUtil.cpp - JIT-compiling mix models in tests --------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "JitUtil.h"

#include "compiler/CompiledNetwork.h"
#include "compiler/ModelLoader.h"
#include "mixrt/mixrt.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>

using namespace mlir;

namespace mix::test {

Jit::Jit() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  DialectRegistry registry;
  registerMixPipelineDependencies(registry);
  context.appendDialectRegistry(registry);
  loadMixDialects(context);
}

std::unique_ptr<ExecutionEngine> compile(ModuleOp module,
                                         const MixPipelineOptions &options) {
  PassManager pm(module.getContext());
  REQUIRE(succeeded(buildMixPipeline(pm, options)));
  REQUIRE(succeeded(pm.run(module)));
  // ExecutionEngineOptions::transformer is a function_ref: the function it
  // refers to must outlive create().
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(/*optLevel=*/2,
                                /*sizeLevel=*/0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    FAIL(llvm::toString(engine.takeError()));
  // Compiled code reports failed checks and runs its GEMMs through mixrt.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const RuntimeSymbol &symbol : generatedCodeRuntimeSymbols())
      symbols[interner(symbol.name)] = {
          llvm::orc::ExecutorAddr::fromPtr(symbol.address),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return std::move(*engine);
}

OwningOpRef<ModuleOp> quantizedCopy(ModuleOp module) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  MixPipelineOptions options;
  options.stopAfter = MixPhase::quantize;
  REQUIRE(succeeded(buildMixPipeline(pm, options)));
  REQUIRE(succeeded(pm.run(*copy)));
  return copy;
}

std::unique_ptr<ExecutionEngine> compile(MLIRContext &context,
                                         llvm::StringRef source,
                                         const MixPipelineOptions &options) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  REQUIRE(module);
  return compile(*module, options);
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

std::string readExample(llvm::StringRef name) {
  std::string path = std::string(MIXC_SOURCE_DIR) + "/examples/" + name.str();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  REQUIRE(buffer);
  return (*buffer)->getBuffer().str();
}

WeightMap makeWeights(ModuleOp module) {
  WeightMap weights;
  uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double((state >> 11) & 0xFFFFF) / double(0x100000) - 0.5;
  };
  module.walk([&](WeightOp w) {
    if (!w.getRefAttr())
      return;
    auto type = cast<ShapedType>(w.getType());
    RefTensor t;
    t.shape.assign(type.getShape().begin(), type.getShape().end());
    int64_t fanIn =
        type.getRank() > 1 ? type.getNumElements() / type.getDimSize(0) : 1;
    bool variance = w.getRefAttr().getValue().ends_with(".var");
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      double v = next() * 2.0 / std::sqrt(double(fanIn));
      // Representable in f32, so compiled code and reference see one value.
      t.data.push_back(double(float(variance ? 0.5 + std::fabs(v) : v)));
    }
    weights[w.getRefAttr().getValue()] = std::move(t);
  });
  return weights;
}

void inlineWeights(ModuleOp module, const WeightMap &weights) {
  module.walk([&](WeightOp w) {
    if (!w.getRefAttr())
      return;
    const RefTensor &t = weights.find(w.getRefAttr().getValue())->second;
    std::vector<float> values(t.data.begin(), t.data.end());
    auto type = cast<RankedTensorType>(w.getType());
    w.setValueAttr(DenseElementsAttr::get(type, llvm::ArrayRef(values)));
    w.removeRefAttr();
  });
}

void stripOverrides(ModuleOp module) {
  module.walk([](Operation *op) {
    if (auto block = dyn_cast<BlockOp>(op))
      block.removePrecisionAttr();
    if (isa<LayerOpInterface>(op))
      for (llvm::StringRef name :
           {"precision", "weights_precision", "activations_precision",
            "accumulator_precision", "output_precision", "resolved"})
        op->removeAttr(name);
  });
}

} // namespace mix::test
