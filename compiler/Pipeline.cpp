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
  std::call_once(once, [] {
    registerAllPasses();
    registerMixPasses();
  });
}

llvm::cl::ValuesClass mix::getMixPhaseValues() {
  return llvm::cl::values(
      clEnumValN(MixPhase::resolve, "resolve", "mix-resolve-precision"),
      clEnumValN(MixPhase::policy, "policy", "mix-verify-policy"),
      clEnumValN(MixPhase::casts, "casts",
                 "int8 accumulation check, mix-insert-casts"),
      clEnumValN(MixPhase::quantize, "quantize", "mix-quantize"),
      clEnumValN(MixPhase::linalg, "linalg", "convert-mix-to-linalg"),
      clEnumValN(MixPhase::llvm, "llvm", "bufferize, lower to LLVM"));
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

StringRef mix::getPhaseName(MixPhase phase) {
  switch (phase) {
  case MixPhase::resolve:
    return "resolve";
  case MixPhase::policy:
    return "policy";
  case MixPhase::casts:
    return "casts";
  case MixPhase::quantize:
    return "quantize";
  case MixPhase::linalg:
    return "linalg";
  case MixPhase::llvm:
    return "llvm";
  }
  llvm_unreachable("unknown phase");
}

std::string mix::getLLVMPhasePipeline(const MixPipelineOptions &options) {
  // Results become caller-provided out-parameters (the C ABI of the
  // generated code), so every buffer allocated inside is freed inside.
  // mix-widen-narrow-floats computes f16/bf16 arithmetic in f32 with one
  // rounding per op (LLVM would split vectors of it into scalars, with a
  // __truncsfbf2 call per bf16 result); mix-approximate-math then writes
  // f32 erf, tanh and exp (f16/bf16 ones too, widened) as inline,
  // vectorizable code (on targets with a fused multiply-add: elsewhere
  // each of its fma would be an fmaf call, slower than libm's function);
  // arith-expand lowers bf16
  // conversions to integer arithmetic (RNE), which needs no runtime support
  // function.
  // mix-order-constants names and orders bufferization's constant globals
  // by first use: the same model compiles to the same bytes (their numbers
  // otherwise follow bufferization's visiting order of the functions).
  // cse and canonicalize after bufferization remove the copy of a tile into
  // itself that bufferizing an in-place tensor.insert_slice leaves (the
  // bands of an im2col convolution); mix-distinct-results then gives a
  // value returned twice (even one canonicalize made so) a copy of its own
  // for each out-parameter.
  // Network functions are renamed first (mixc_net_NAME), so the C library
  // functions declared later never meet a user's name; mix-plan-memory
  // puts every intermediate buffer in one workspace argument (what remains
  // allocated is freed by the deallocation pipeline); the public C
  // interfaces get their names last.
  // Freestanding code has no heap: no entry that allocates the workspace.
  // Without microkernels nothing fuses an int8 convolution's epilogue:
  // its input need not outlive the convolution.
  // Weight-only int8 weights are folded and packed before the plan, so it
  // reserves no buffer for their dequantized form.
  std::string planMemory =
      std::string(options.microkernels ? "mix-pack-dequantized-weights," : "") +
      "mix-plan-memory{allocating-entry=" +
      (options.allocatingEntry ? "true" : "false") +
      " int8-epilogues=" + (options.microkernels ? "true" : "false") + "},";
  // mix-use-microkernels runs on the planned buffers (it must know where
  // they live to fuse a bias) and before the layers are outlined (it must
  // see the weight globals). cse then merges the plan's views of one buffer
  // (one per use), so a layer written in place gets one pointer and LLVM
  // vectorizes it without an overlap check that fails for equal pointers.
  std::string useMicrokernels = options.microkernels
                                    ? "mix-use-microkernels,"
                                    : "mix-use-microkernels{enabled=false},";
  // mix-fuse-elementwise runs on tensors, before bufferization.
  std::string fuse = options.fuseElementwise ? "mix-fuse-elementwise," : "";
  std::string approximateMath =
      options.approximateMath ? "mix-approximate-math," : "";
  return "mix-mangle-network-symbols,"
         "canonicalize," +
         fuse +
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "mix-order-constants,"
         "cse,"
         "canonicalize,"
         "mix-distinct-results,"
         "buffer-results-to-out-params{modify-public-functions "
         "hoist-static-allocs}," +
         planMemory + useMicrokernels + "cse,mix-outline-layers," +
         std::string(options.profileLayers ? "mix-profile-layers," : "") +
         "buffer-deallocation-pipeline,"
         "convert-bufferization-to-memref,"
         "convert-linalg-to-loops,"
         "lower-affine,"
         "convert-scf-to-cf,"
         "expand-strided-metadata,"
         "lower-affine,"
         "mix-widen-narrow-floats," +
         approximateMath +
         "arith-expand{include-bf16=true},"
         "finalize-memref-to-llvm,"
         "convert-math-to-llvm,"
         "convert-math-to-libm,"
         "convert-arith-to-llvm,"
         "convert-func-to-llvm,"
         "convert-cf-to-llvm,"
         "reconcile-unrealized-casts,"
         "mix-export-network-symbols";
}

LogicalResult mix::buildMixPipeline(OpPassManager &pm,
                                    const MixPipelineOptions &options) {
  auto upTo = [&](MixPhase phase) {
    return options.startAt <= phase && phase <= options.stopAfter;
  };
  // Networks with a dynamic batch are compiled one sample per call of the
  // lowered function (the entry point loops over the batch): whichever phase
  // a run starts at, the mix phases see static shapes. Without a dynamic
  // batch the pass changes nothing.
  if (options.startAt <= MixPhase::linalg)
    pm.addPass(createMixSpecializeBatchPass());
  if (upTo(MixPhase::resolve))
    pm.addPass(createMixResolvePrecisionPass());
  if (upTo(MixPhase::policy) && options.verifyPolicy) {
    MixVerifyPolicyPassOptions policy;
    policy.policyPath = options.policyPath;
    pm.addPass(createMixVerifyPolicyPass(policy));
  }
  if (upTo(MixPhase::casts)) {
    if (options.foldBatchNorm)
      pm.addPass(createMixFoldBatchNormPass());
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
        options.weightGranularity == WeightGranularity::tensor ? "tensor"
                                                               : "channel";
    quantize.checked = options.checkedCasts;
    pm.addPass(createMixQuantizePass(quantize));
  }
  if (upTo(MixPhase::linalg)) {
    ConvertMixToLinalgPassOptions linalg;
    linalg.checks = options.checkedCasts;
    linalg.microkernels = options.microkernels;
    pm.addPass(createConvertMixToLinalgPass(linalg));
  }
  if (upTo(MixPhase::llvm)) {
    ensureUpstreamPassesRegistered();
    if (failed(parsePassPipeline(getLLVMPhasePipeline(options), pm)))
      return failure();
  }
  return success();
}

void mix::registerMixPipelineDependencies(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

void mix::registerMixPipelines() {
  ensureUpstreamPassesRegistered();
  PassPipelineRegistration<MixPipelineOptions>(
      "mix-lower-to-llvm",
      "Lower mix networks to the LLVM dialect (resolve, policy, casts, "
      "quantize, linalg, llvm)",
      [](OpPassManager &pm, const MixPipelineOptions &options) {
        (void)buildMixPipeline(pm, options);
      });
}
