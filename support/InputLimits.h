//===- InputLimits.h - bounded reading of untrusted input -------*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Every file a mixc tool reads is untrusted. These helpers bound what a file
// may cost before any parser sees it (docs/guarantees.md lists the limits):
//
//  - `readInputFile` refuses what is not a regular file (a FIFO would block
//    forever, `/dev/zero` would be read until memory runs out) and files
//    larger than the limit of their kind; `-` reads standard input, also
//    bounded.
//  - `checkNestingDepth` refuses text nested deeper than the recursive
//    parsers (MLIR's, llvm::json's) can take on a thread's stack, before
//    they recurse.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_SUPPORT_INPUTLIMITS_H
#define MIXC_SUPPORT_INPUTLIMITS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>

namespace mix {

/// The documented limits (docs/guarantees.md).
namespace limits {
/// A model (`.mlir`), inline weights included.
constexpr uint64_t kMaxModelBytes = uint64_t(4) << 30;
/// A precision policy (JSON).
constexpr uint64_t kMaxPolicyBytes = uint64_t(1) << 20;
/// A calibration file (JSON).
constexpr uint64_t kMaxCalibrationBytes = uint64_t(64) << 20;
/// The JSON header of a safetensors file (the format's own limit).
constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;
/// Brackets `( [ { <` open at once in a model.
constexpr unsigned kMaxModelNesting = 1000;
/// Brackets `[ {` open at once in a JSON document.
constexpr unsigned kMaxJSONNesting = 100;
} // namespace limits

/// Reads `path` (`-`: standard input) whole, if it is a regular file of at
/// most `maxBytes` bytes. `what` names the input in errors ("model",
/// "policy", ...): "cannot read policy 'p.json': not a regular file (a
/// FIFO)", "policy 'p.json' is 3000000 bytes, more than the limit of
/// 1048576".
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef path, uint64_t maxBytes, llvm::StringRef what);

/// Opens `path` for reading under the checks of readInputFile (a regular
/// file of at most `maxBytes` bytes; `-` is not accepted) without reading
/// it: for parsers that stream (an ONNX model is parsed in chunks, so its
/// file and its parsed form are never in memory together). Returns the
/// descriptor (the caller closes it) and, in `size`, the file's size.
llvm::Expected<int> openInputFile(llvm::StringRef path, uint64_t maxBytes,
                                  llvm::StringRef what,
                                  uint64_t *size = nullptr);

/// Fails when `path` exists and is not a regular file: for inputs that are
/// mapped rather than read (safetensors weights).
llvm::Error requireRegularFile(llvm::StringRef path, llvm::StringRef what);

/// The lexical syntax whose brackets `checkNestingDepth` counts.
enum class NestingSyntax {
  /// MLIR: `( [ { <` (not the `>` of `->`), skipping "strings" and
  /// `//` comments.
  mlir,
  /// JSON: `[ {`, skipping "strings".
  json,
};

/// Fails with "<name>:<line>:<col>: nesting deeper than <limit> levels" at
/// the first bracket beyond `limit`.
llvm::Error checkNestingDepth(llvm::StringRef text, unsigned limit,
                              NestingSyntax syntax, llvm::StringRef name);

} // namespace mix

#endif // MIXC_SUPPORT_INPUTLIMITS_H
