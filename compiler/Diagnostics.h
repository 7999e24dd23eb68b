//===- Diagnostics.h - printing MLIR diagnostics in the mixc tools --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mixc and mix-lint print every diagnostic of a run, as mix-opt does, with
// the source line and a caret under the column, each error followed by its
// notes ("weight defined here", "f16 inherited from block @b"). Each error
// line keeps the one-line form the tools always printed:
//
//   mixc: error: model.mlir:5:8: 'mix.dense' op int8 accumulation can ...
//     %1 = mix.dense %0, %w ...
//          ^
//   model.mlir:2:3: note: ...
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_DIAGNOSTICS_H
#define MIXC_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace mix {

/// A location as file, line and column; line and column are 0 when the
/// location has no file position.
struct SourcePosition {
  std::string file;
  unsigned line = 0, column = 0;
};

/// The file position of `loc` (the first FileLineColLoc inside it).
SourcePosition getSourcePosition(mlir::Location loc);

/// "FILE:LINE:COL: " for a location with a file position; "" for one
/// without (an error about no place in the model, such as a calibration or
/// policy file that cannot be read, names its file itself). Every tool
/// prefixes messages with this, so none prints "model.mlir:0:0:".
std::string locationPrefix(mlir::Location loc);

/// Prints every diagnostic reported in `context` while it is alive to `os`:
/// errors and warnings as `TOOL: error: FILE:LINE:COL: message` (the source
/// line and a caret follow when the file is in `sourceMgr`), notes as
/// `FILE:LINE:COL: note: message`. Remarks are dropped, and so is the
/// "see current operation" note of failing passes.
class DiagnosticPrinter {
public:
  DiagnosticPrinter(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                    llvm::raw_ostream &os, llvm::StringRef tool);
  ~DiagnosticPrinter();
  DiagnosticPrinter(const DiagnosticPrinter &) = delete;
  DiagnosticPrinter &operator=(const DiagnosticPrinter &) = delete;

  /// How many errors were printed.
  unsigned getNumErrors() const { return numErrors; }

  /// Called before each message is printed (mixc erases its progress line).
  void setBeforePrint(std::function<void()> callback) {
    beforePrint = std::move(callback);
  }

  /// Prints one message in the same form (`TOOL: error: ...`), e.g. for an
  /// error that is not a diagnostic. `loc` may be unknown.
  void print(mlir::Location loc, mlir::DiagnosticSeverity severity,
             const llvm::Twine &message);

private:
  void emit(mlir::Diagnostic &diag);
  void printSourceLine(const SourcePosition &pos);

  mlir::MLIRContext &context;
  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  std::string tool;
  mlir::DiagnosticEngine::HandlerID id;
  unsigned numErrors = 0;
  std::function<void()> beforePrint;
};

} // namespace mix

#endif // MIXC_COMPILER_DIAGNOSTICS_H
