//===- ModelLoader.h - reading mix models with one-line errors ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_MODELLOADER_H
#define MIXC_COMPILER_MODELLOADER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>

namespace mix {

/// Loads the mix dialect (and what models may contain) into `context`.
void loadMixDialects(mlir::MLIRContext &context);

/// Formats a location as `file:line:col` (or `unknown location`); built on
/// getSourcePosition (compiler/Diagnostics.h), the one location splitter.
std::string formatLocation(mlir::Location loc);

/// Collects the first error diagnostic reported while it is alive, as
/// `file:line:col: message`; other diagnostics are swallowed. For tools that
/// report one line; mixc and mix-lint print every diagnostic instead
/// (DiagnosticPrinter).
class FirstErrorCollector {
public:
  explicit FirstErrorCollector(mlir::MLIRContext &context);
  ~FirstErrorCollector();
  bool hasError() const { return !first.empty(); }
  const std::string &message() const { return first; }

private:
  mlir::MLIRContext &context;
  mlir::DiagnosticEngine::HandlerID id;
  std::string first;
};

/// How ONNX models are imported (docs/onnx.md); ignored for `.mlir` models.
struct ModelLoadOptions {
  /// A precision plan (JSON) to write into an imported ONNX model; it is an
  /// error to give one with a model that is not ONNX.
  std::string precisionPlanPath;
};

/// Reads, parses and verifies a model file (`-` is standard input). A path
/// ending in `.onnx` is imported in process (every weight inline) when
/// mixc is built with the ONNX importer. Fails
/// with a one-line message naming the file and the location of the problem;
/// a file without any `mix.network` is an error too.
///
/// With a `sourceMgr`, the file is kept in it (for printing source lines
/// later) and parser and verifier diagnostics go to the context's handlers
/// (e.g. a DiagnosticPrinter) instead of into the message, which then only
/// says that the model is invalid.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
loadModel(llvm::StringRef path, mlir::MLIRContext &context,
          llvm::SourceMgr *sourceMgr = nullptr,
          const ModelLoadOptions &loadOptions = {});

/// What loadModel does after reading the file: the model text is `buffer`
/// (non-null and NUL-terminated, as MemoryBuffer::getMemBufferCopy makes
/// it: the MLIR lexer stops at the NUL), `name` stands for it in messages
/// (loadModel passes the path). The same checks apply: at most
/// limits::kMaxModelBytes, nesting bounded before the parser runs, at least
/// one `mix.network`. For in-memory models (the fuzzers, tests).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
loadModelFromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                    llvm::StringRef name, mlir::MLIRContext &context,
                    llvm::SourceMgr *sourceMgr = nullptr);

} // namespace mix

#endif // MIXC_COMPILER_MODELLOADER_H
