//===- Pipeline.cpp - the mixc lowering pipeline --------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Pipeline.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"
#include "passes/Passes.h"

#include <mutex>

using namespace mlir;
using namespace mix;

/// Registers the upstream passes of the textual `llvm` phase, once.
static void ensureUpstreamPassesRegistered() {
  static std::once_flag once;
  std::call_once(once, [] { registerAllPasses(); });
}

std::optional<MixPhase> mix::parsePhase(StringRef name) {
  return llvm::StringSwitch<std::optional<MixPhase>>(name)
      .Case("resolve", MixPhase::resolve)
      .Case("policy", MixPhase::policy)
      .Case("casts", MixPhase::casts)
      .Case("quantize", MixPhase::quantize)
      .Case("linalg", MixPhase::linalg)
      .Case("llvm", MixPhase::llvm)
      .Default(std::nullopt);
}

std::string mix::getLLVMPhasePipeline() {
  // Results become caller-provided out-parameters (the C ABI of the
  // generated code), so every buffer allocated inside is freed inside.
  // arith-expand lowers bf16 conversions to integer arithmetic (RNE), which
  // needs no runtime support function.
  return "canonicalize,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "buffer-results-to-out-params{modify-public-functions "
         "hoist-static-allocs},"
         "buffer-deallocation-pipeline,"
         "convert-bufferization-to-memref,"
         "convert-linalg-to-loops,"
         "lower-affine,"
         "convert-scf-to-cf,"
         "expand-strided-metadata,"
         "arith-expand{include-bf16=true},"
         "finalize-memref-to-llvm,"
         "convert-math-to-llvm,"
         "convert-math-to-libm,"
         "convert-arith-to-llvm,"
         "convert-func-to-llvm,"
         "convert-cf-to-llvm,"
         "reconcile-unrealized-casts";
}

LogicalResult mix::buildMixPipeline(OpPassManager &pm,
                                    const MixPipelineOptions &options) {
  auto upTo = [&](MixPhase phase) {
    return options.startAt <= phase && phase <= options.stopAfter;
  };
  if (upTo(MixPhase::resolve))
    pm.addPass(createMixResolvePrecisionPass());
  if (upTo(MixPhase::policy) && options.verifyPolicy) {
    MixVerifyPolicyPassOptions policy;
    policy.policyPath = options.policyPath;
    pm.addPass(createMixVerifyPolicyPass(policy));
  }
  if (upTo(MixPhase::casts)) {
    MixCheckInt8AccumulationPassOptions int8;
    int8.splitK = options.splitK;
    pm.addPass(createMixCheckInt8AccumulationPass(int8));
    MixInsertCastsPassOptions casts;
    casts.checked = options.checkedCasts;
    pm.addPass(createMixInsertCastsPass(casts));
    pm.addPass(createCanonicalizerPass());
  }
  if (upTo(MixPhase::quantize)) {
    MixQuantizePassOptions quantize;
    quantize.calibration = options.calibrationPath;
    quantize.weightGranularity =
        options.perTensorWeights ? "tensor" : "channel";
    quantize.checked = options.checkedCasts;
    pm.addPass(createMixQuantizePass(quantize));
  }
  if (upTo(MixPhase::linalg)) {
    ConvertMixToLinalgPassOptions linalg;
    linalg.checks = options.checkedCasts;
    pm.addPass(createConvertMixToLinalgPass(linalg));
  }
  if (upTo(MixPhase::llvm)) {
    ensureUpstreamPassesRegistered();
    if (failed(parsePassPipeline(getLLVMPhasePipeline(), pm)))
      return failure();
  }
  return success();
}

void mix::registerMixPipelineDependencies(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

namespace {
struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  Option<std::string> policy{*this, "policy",
                             llvm::cl::desc("Policy file (default: built-in)")};
  Option<bool> verifyPolicy{*this, "verify-policy",
                            llvm::cl::desc("Run mix-verify-policy"),
                            llvm::cl::init(true)};
  Option<bool> checked{*this, "checked",
                       llvm::cl::desc("Checked narrowing casts"),
                       llvm::cl::init(true)};
  Option<std::string> calibration{
      *this, "calibration",
      llvm::cl::desc("Calibration file (default: dynamic int8 scales)")};
  Option<bool> splitK{*this, "split-k",
                      llvm::cl::desc("Split K of int8 layers that could "
                                     "overflow instead of rejecting them"),
                      llvm::cl::init(false)};
  Option<bool> perTensorWeights{
      *this, "per-tensor-weights",
      llvm::cl::desc("One int8 weight scale per tensor"),
      llvm::cl::init(false)};
  Option<std::string> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("Last phase: resolve|policy|casts|quantize|linalg|llvm"),
      llvm::cl::init("llvm")};
};
} // namespace

void mix::registerMixPipelines() {
  ensureUpstreamPassesRegistered();
  PassPipelineRegistration<LowerToLLVMOptions>(
      "mix-lower-to-llvm",
      "Lower mix networks to the LLVM dialect (resolve, policy, casts, "
      "quantize, linalg, llvm)",
      [](OpPassManager &pm, const LowerToLLVMOptions &cl) {
        MixPipelineOptions options;
        options.policyPath = cl.policy;
        options.verifyPolicy = cl.verifyPolicy;
        options.checkedCasts = cl.checked;
        options.calibrationPath = cl.calibration;
        options.splitK = cl.splitK;
        options.perTensorWeights = cl.perTensorWeights;
        if (std::optional<MixPhase> phase = parsePhase(cl.stopAfter))
          options.stopAfter = *phase;
        (void)buildMixPipeline(pm, options);
      });
}
