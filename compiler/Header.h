//===- Header.h - the C header of a compiled model ------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mixc writes, beside the object file, a C header (C99 and C++) that declares
// the entry points of the compiled networks:
//
//   void _mlir_ciface_NAME(mixc_memref_rankN *inputs..., *outputs...);
//   static inline mixrt_status_code NAME_run(const T *in..., T *out...);
//   static inline mixrt_status_code NAME_run_with_workspace(..., void *ws);
//
// (freestanding: only the entry and wrapper that take the workspace).
//
// The signatures are taken from the `mix.network` ops before lowering (the
// `func.func` the pipeline makes of a network keeps the same function type,
// but the LLVM dialect no longer has tensor types).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_HEADER_H
#define MIXC_COMPILER_HEADER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mix {

/// One tensor of a network's signature, as the header presents it.
struct HeaderTensor {
  /// A C identifier: the `mix.name` argument/result attribute if present,
  /// else the SSA name in the source (`%image` -> `image`; for results, the
  /// name of the returned value), else `in<i>` / `out<i>`. Made unique
  /// within the network and kept clear of C keywords.
  std::string name;
  /// The element type as written in MLIR ("f32") and its C type ("float").
  std::string mlirType;
  std::string cType;
  /// The shape of one call of the lowered network: for a `batched` tensor,
  /// one sample (the leading dimension is 1).
  std::vector<int64_t> shape;
  /// The leading dimension is the network's dynamic batch (`?`): the
  /// buffer holds `batch` samples of `shape`.
  bool batched = false;
  /// The `mix.name` attribute as written ("" without one): the weight and
  /// statistic names of a training layout.
  std::string label;
  /// A weight input of a gradient network: the `mix.working_precision`
  /// ("f16", "bf16") or "".
  std::string workingPrecision;
};

/// The C-level signature of one `mix.network`.
struct NetworkSignature {
  std::string name;     ///< the symbol: `_mlir_ciface_<name>`, `<name>_run`
  std::string location; ///< file:line:col of the network
  std::vector<HeaderTensor> inputs;
  std::vector<HeaderTensor> outputs;
  /// Bytes of the workspace of NAME_run_with_workspace (the memory plan).
  int64_t workspaceBytes = 0;
  /// The network takes a dynamic batch: the entry points take the number of
  /// samples first and call the lowered network once per sample.
  bool dynamicBatch = false;
};

/// The signatures of every `mix.network` of `module`. Fails (one line,
/// naming the network's location) if a network's name is not a C identifier
/// or its signature has a type the header cannot express (not a tensor of
/// f64, f32, f16, bf16, i64, i32, i16, i8 or ui8 with static dimensions but
/// for a dynamic batch).
llvm::Expected<std::vector<NetworkSignature>>
collectNetworkSignatures(mlir::ModuleOp module);

struct HeaderInfo {
  /// The model's name: `<name>.h`, include guard `MIXC_<NAME>_H`.
  std::string modelName;
  /// The source file named in the banner.
  std::string sourceName;
  /// The mixc version named in the banner.
  std::string version;
  /// Freestanding code (`mixc --freestanding`): the object has no entry
  /// that allocates (no `_mlir_ciface_NAME`, no `NAME_run`) and the header
  /// includes only mixrt's freestanding core, `mixrt/core.h`.
  bool freestanding = false;
  /// The object has run-time checks; without them (`--no-checks`) the
  /// wrappers call no mixrt function.
  bool checks = true;
  /// `mixc --train`: for every network NAME compiled with NAME_grad and
  /// NAME_initial_weights (mix-differentiate{weights-as-inputs}), the
  /// training entry points NAME_train_state_size/init/step/export, which
  /// drive mixrt's trainer (checked by checkTrainingSignatures).
  bool train = false;
};

/// For `mixc --train`: fails (one line naming the network) unless every
/// network NAME with a NAME_grad can be trained by the header's step: a
/// static batch, an f32 loss, f32 or f64 weights, and NAME_initial_weights
/// matching the gradient network.
llvm::Error checkTrainingSignatures(llvm::ArrayRef<NetworkSignature> networks);

/// The text of the header declaring `networks`.
std::string generateHeader(llvm::ArrayRef<NetworkSignature> networks,
                           const HeaderInfo &info);

/// collectNetworkSignatures + generateHeader, for a module that still has
/// its `mix.network` ops.
llvm::Expected<std::string> generateHeader(mlir::ModuleOp module,
                                           const HeaderInfo &info);

} // namespace mix

#endif // MIXC_COMPILER_HEADER_H
