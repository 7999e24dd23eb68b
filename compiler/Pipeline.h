//===- Pipeline.h - the mixc lowering pipeline ----------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The phases from a `mix` model to the LLVM dialect, as a library function
// with an options struct that can stop after any phase:
//
//   resolve  mix-resolve-precision
//   policy   mix-verify-policy (optional)
//   casts    mix-check-int8-accumulation, mix-insert-casts, canonicalize
//   quantize mix-quantize: int8 layers to quantize + integer GEMM + rescale
//   linalg   convert-mix-to-linalg: func + linalg/arith/math/tensor
//   llvm     one-shot bufferization (results become out-parameters, buffers
//            deallocated), linalg to loops, everything to the LLVM dialect
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_PIPELINE_H
#define MIXC_COMPILER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mix {

enum class MixPhase { resolve, policy, casts, quantize, linalg, llvm };

/// The `cl::values` of the phases: resolve, policy, casts, quantize, linalg,
/// llvm (`--stop-after`, `--start-at`, mix-run's `--lower-to`).
llvm::cl::ValuesClass getMixPhaseValues();

/// Parses "resolve", "policy", "casts", "quantize", "linalg" or "llvm".
std::optional<MixPhase> parsePhase(llvm::StringRef name);

/// The name of a phase ("casts").
llvm::StringRef getPhaseName(MixPhase phase);

/// How int8 weights are scaled: one scale per output channel or per tensor.
enum class WeightGranularity { channel, tensor };

/// The options of the mix pipeline: the one options struct shared by
/// `buildMixPipeline` (library and tests), the `mix-lower-to-llvm` pipeline
/// of mix-opt (`--mix-lower-to-llvm="stop-after=casts split-k"`) and mixc,
/// which embeds it in CompileOptions.
///
/// `PassPipelineOptions` owns `llvm::cl` options registered with itself, so
/// it cannot be copied member-wise; copying goes through
/// `copyOptionValuesFrom`, which makes the struct a value type.
struct MixPipelineOptions
    : public mlir::PassPipelineOptions<MixPipelineOptions> {
  MixPipelineOptions() = default;
  MixPipelineOptions(const MixPipelineOptions &other) : MixPipelineOptions() {
    copyOptionValuesFrom(other);
  }
  MixPipelineOptions &operator=(const MixPipelineOptions &other) {
    if (this != &other)
      copyOptionValuesFrom(other);
    return *this;
  }

  /// The first phase to run (earlier ones are skipped: run a pipeline in
  /// stages, e.g. to inspect the IR between phases).
  Option<MixPhase> startAt{
      *this, "start-at", llvm::cl::desc("First phase to run"),
      llvm::cl::init(MixPhase::resolve), getMixPhaseValues()};
  /// The last phase to run.
  Option<MixPhase> stopAfter{
      *this, "stop-after", llvm::cl::desc("Last phase to run"),
      llvm::cl::init(MixPhase::llvm), getMixPhaseValues()};
  /// Run mix-verify-policy (phase `policy`).
  Option<bool> verifyPolicy{*this, "verify-policy",
                            llvm::cl::desc("Run mix-verify-policy"),
                            llvm::cl::init(true)};
  /// Policy file for mix-verify-policy; empty: the built-in default.
  Option<std::string> policyPath{
      *this, "policy", llvm::cl::desc("Policy file (default: built-in)")};
  /// Checked numerics: narrowing casts report overflow and int8 quantizes
  /// report non-finite input at run time (mixrt_check_fail).
  Option<bool> checkedCasts{
      *this, "checked",
      llvm::cl::desc("Run-time checks of narrowing casts and int8 "
                     "quantization"),
      llvm::cl::init(true)};
  /// Each network also gets the entry that allocates its workspace with
  /// malloc (`mix-plan-memory{allocating-entry}`, C name `_mlir_ciface_NAME`);
  /// freestanding code (`mixc --freestanding`) has only the workspace entry.
  Option<bool> allocatingEntry{
      *this, "allocating-entry",
      llvm::cl::desc("Add the entry that allocates the workspace (malloc)"),
      llvm::cl::init(true)};
  /// Dense GEMMs call mixrt's microkernels with weights packed at compile
  /// time (mix-use-microkernels); false keeps the generated loops.
  Option<bool> microkernels{
      *this, "microkernels",
      llvm::cl::desc("Call mixrt's GEMM microkernels for dense layers with "
                     "constant weights"),
      llvm::cl::init(true)};
  /// f32 erf, tanh and exp become inline polynomial code
  /// (mix-approximate-math); false keeps libm's calls. mixc sets it from the
  /// target: the approximations pay off only with a fused multiply-add.
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Compute f32 erf, tanh and exp by inline approximations "
                     "instead of libm calls"),
      llvm::cl::init(true)};
  /// Inference batch_norm layers are folded into the float conv2d before
  /// them where the resolved precisions allow (mix-fold-batch-norm).
  Option<bool> foldBatchNorm{
      *this, "fold-batch-norm",
      llvm::cl::desc("Fold batch_norm layers into the conv2d before them "
                     "where the precisions allow"),
      llvm::cl::init(true)};
  /// Chains of elementwise layers run as one loop (mix-fuse-elementwise;
  /// bit-identical results).
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse chains of elementwise layers into one loop"),
      llvm::cl::init(true)};
  /// Each layer of the planned networks is timed by calls of
  /// mixc_profile_begin/end (mix-profile-layers), which the process running
  /// the code provides: mix-bench --profile (compiler/LayerProfile.h).
  Option<bool> profileLayers{
      *this, "profile-layers",
      llvm::cl::desc("Time every layer (calls of mixc_profile_begin/end, "
                     "for mix-bench --profile)"),
      llvm::cl::init(false)};
  /// Calibration file for static int8 activation scales; empty: dynamic.
  Option<std::string> calibrationPath{
      *this, "calibration",
      llvm::cl::desc("Calibration file (default: dynamic int8 scales)")};
  /// Split K of int8 layers whose i32 sum could overflow (else rejected).
  Option<bool> splitK{*this, "split-k",
                      llvm::cl::desc("Split K of int8 layers that could "
                                     "overflow instead of rejecting them"),
                      llvm::cl::init(false)};
  /// One int8 weight scale per output channel (default) or per tensor.
  Option<WeightGranularity> weightGranularity{
      *this, "weight-granularity", llvm::cl::desc("Scales of int8 weights"),
      llvm::cl::init(WeightGranularity::channel),
      llvm::cl::values(clEnumValN(WeightGranularity::channel, "channel",
                                  "one scale per output channel"),
                       clEnumValN(WeightGranularity::tensor, "tensor",
                                  "one scale per tensor"))};
};

/// Adds the passes of every phase from `options.startAt` up to
/// `options.stopAfter` to `pm`.
/// Fails when a pass pipeline cannot be built (an internal error).
mlir::LogicalResult buildMixPipeline(mlir::OpPassManager &pm,
                                     const MixPipelineOptions &options);

/// The textual pipeline of the `llvm` phase (after `linalg`) for `options`
/// (allocatingEntry, fuseElementwise, microkernels, profileLayers), for docs
/// and for reproducing it with mix-opt --pass-pipeline.
std::string getLLVMPhasePipeline(const MixPipelineOptions &options);

/// Registers the dialects, interfaces and translations the pipeline needs
/// (bufferization models, LLVM IR translation, ...).
void registerMixPipelineDependencies(mlir::DialectRegistry &registry);

/// Registers every upstream pass the `llvm` phase uses and the named
/// pipeline `mix-lower-to-llvm` (for mix-opt).
void registerMixPipelines();

} // namespace mix

#endif // MIXC_COMPILER_PIPELINE_H
