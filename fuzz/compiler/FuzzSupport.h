//===-- FuzzSupport.h - what the compiler fuzzers share ---------*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The context every compiler fuzzer runs in, the one way they report a
// violated invariant, and a fuzzer input behind a file path: the readers of
// weights and calibration files take a path, so those fuzzers write each
// input to one anonymous in-memory file (memfd) and pass its
// /proc/self/fd/N path, a regular file as the readers require, with nothing
// left on disk.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_FUZZ_COMPILER_FUZZSUPPORT_H
#define MIXC_FUZZ_COMPILER_FUZZSUPPORT_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mix::fuzz {

/// What a context of fuzzContext() loads.
enum class FuzzDialects {
  /// The mix dialect and func: enough to parse and check a model.
  model,
  /// Also every dialect the mix pipeline may create, as mixc loads them.
  pipeline,
};

/// The process's one MLIR context (created on the first call, never
/// destroyed): threading disabled, the dialects of `dialects` loaded, and
/// every diagnostic swallowed (errors are expected; nothing is printed).
/// All calls of one fuzzer must ask for the same dialects.
mlir::MLIRContext &fuzzContext(FuzzDialects dialects);

/// Reports that `fuzzer`'s invariant `what` does not hold
/// ("FUZZER: invariant violated: WHAT: DETAIL", the detail left out when
/// empty) and aborts, so libFuzzer keeps the input as a finding.
[[noreturn]] void invariantViolated(const char *fuzzer, const char *what,
                                    llvm::StringRef detail = {});

/// Replaces the contents of the process's input file by `data` and returns
/// its path. Aborts if the file cannot be created or written.
const std::string &writeInputFile(const uint8_t *data, size_t size);

} // namespace mix::fuzz

#endif // MIXC_FUZZ_COMPILER_FUZZSUPPORT_H
