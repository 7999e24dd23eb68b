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
//   casts    mix-insert-casts, canonicalize (cast folding)
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

enum class MixPhase { resolve, policy, casts, linalg, llvm };

/// Parses "resolve", "policy", "casts", "linalg" or "llvm".
std::optional<MixPhase> parsePhase(llvm::StringRef name);

struct MixPipelineOptions {
  /// The last phase to run.
  MixPhase stopAfter = MixPhase::llvm;
  /// Run mix-verify-policy (phase `policy`).
  bool verifyPolicy = true;
  /// Policy file for mix-verify-policy; empty: the built-in default.
  std::string policyPath;
  /// Mark narrowing casts checked.
  bool checkedCasts = true;
};

/// Adds the passes of every phase up to `options.stopAfter` to `pm`.
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
