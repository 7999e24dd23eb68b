//===- CompiledNetwork.h - running the object mixc writes, in process -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiles a model with the mixc driver (the same pipeline, options and
// target as `mixc`, into a temporary directory), loads the object it wrote
// into this process with LLVM's ORC JIT linker (relocations only: no code
// is generated again) and calls a network's workspace entry
// `_mlir_ciface_mixc_net_NAME`. What runs is exactly what `mixc` emits, so
// mix-bench and the benchmarks in bench/ time the real thing.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_COMPILEDNETWORK_H
#define MIXC_COMPILER_COMPILEDNETWORK_H

#include "compiler/Driver.h"
#include "compiler/Header.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mix {

class CompiledNetwork {
public:
  /// Compiles `options.modelPath` with `options` (its output stem and
  /// --emit are replaced) and loads network `entry` (empty: the only one).
  /// Errors: the model's (mixc's diagnostics are printed to `diagnostics`
  /// and the error says the compilation failed), a network with more than
  /// 16 inputs and outputs, the JIT's.
  static llvm::Expected<std::unique_ptr<CompiledNetwork>>
  compile(CompileOptions options, llvm::StringRef entry,
          llvm::raw_ostream &diagnostics);
  ~CompiledNetwork();

  const NetworkSignature &signature() const { return sig; }
  /// NAME_WORKSPACE_SIZE of the header.
  uint64_t workspaceBytes() const { return workspace; }
  /// Wall time of the compilation.
  double compileSeconds() const { return seconds; }

  /// A prepared call: the descriptors of `buffers` (inputs, then outputs,
  /// each holding `batch` samples when batched) and of the workspace, one
  /// set per sample of a dynamic batch.
  class Call {
  public:
    /// Runs every sample, in order (as the header's entry does, without
    /// the check reset and status around it).
    void operator()() const;

  private:
    friend class CompiledNetwork;
    void *entry = nullptr;
    std::vector<std::vector<std::vector<int64_t>>> descriptors;
    std::vector<std::vector<void *>> args;
  };
  /// `buffers` must stay valid while the call is used; `workspace` holds
  /// workspaceBytes() bytes aligned to 64 (or is null if that is 0).
  Call prepare(llvm::ArrayRef<void *> buffers, int64_t batch,
               void *workspace) const;

private:
  CompiledNetwork() = default;
  NetworkSignature sig;
  uint64_t workspace = 0;
  double seconds = 0;
  void *entry = nullptr;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

/// Bytes of one element of a header tensor's C type.
size_t elementBytes(const HeaderTensor &tensor);

/// A mixrt function generated code may call, with its address in this
/// process.
struct RuntimeSymbol {
  const char *name;
  void *address;
};

/// Every mixrt function the generated code may call (checks, microkernels):
/// what a JIT loading that code in process must define, since mixrt may be
/// linked statically (unexported, or dropped when nothing else uses it).
llvm::ArrayRef<RuntimeSymbol> generatedCodeRuntimeSymbols();

} // namespace mix

#endif // MIXC_COMPILER_COMPILEDNETWORK_H
