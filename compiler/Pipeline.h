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

#include <optional>
#include <string>

namespace mix {

enum class MixPhase { resolve, policy, casts, quantize, linalg, llvm };

/// Parses "resolve", "policy", "casts", "quantize", "linalg" or "llvm".
std::optional<MixPhase> parsePhase(llvm::StringRef name);

struct MixPipelineOptions {
  /// The first phase to run (earlier ones are skipped: run a pipeline in
  /// stages, e.g. to inspect the IR between phases).
  MixPhase startAt = MixPhase::resolve;
  /// The last phase to run.
  MixPhase stopAfter = MixPhase::llvm;
  /// Run mix-verify-policy (phase `policy`).
  bool verifyPolicy = true;
  /// Policy file for mix-verify-policy; empty: the built-in default.
  std::string policyPath;
  /// Checked numerics: narrowing casts report overflow and int8 quantizes
  /// report non-finite input at run time (mixrt_check_fail).
  bool checkedCasts = true;
  /// Calibration file for static int8 activation scales; empty: dynamic.
  std::string calibrationPath;
  /// Split K of int8 layers whose i32 sum could overflow (else rejected).
  bool splitK = false;
  /// One int8 weight scale per tensor instead of per output channel.
  bool perTensorWeights = false;
};

/// Adds the passes of every phase from `options.startAt` up to
/// `options.stopAfter` to `pm`.
/// Fails when a pass pipeline cannot be built (an internal error).
mlir::LogicalResult buildMixPipeline(mlir::OpPassManager &pm,
                                     const MixPipelineOptions &options);

/// The textual pipeline of the `llvm` phase (after `linalg`), for docs and
/// for reproducing it with mlir-opt.
std::string getLLVMPhasePipeline();

/// Registers the dialects, interfaces and translations the pipeline needs
/// (bufferization models, LLVM IR translation, ...).
void registerMixPipelineDependencies(mlir::DialectRegistry &registry);

/// Registers every upstream pass the `llvm` phase uses and the named
/// pipeline `mix-lower-to-llvm` (for mix-opt).
void registerMixPipelines();

} // namespace mix

#endif // MIXC_COMPILER_PIPELINE_H
