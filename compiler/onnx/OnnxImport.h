//===- OnnxImport.h - ONNX models into the mix dialect --------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// `mix-import-onnx model.onnx -o model.mlir` and `mixc model.onnx`: an ONNX
// model (checked, converted to opset 17 and shape-inferred by libonnx, see
// OnnxProto.h) becomes one `mix.network` built from the ops the dialect has.
// Node names that are module paths (`/encoder/layer.0/attn/MatMul`) become
// nested `mix.block`s (`@encoder`, `@encoder.layer.0`, ...); a precision plan
// (PrecisionPlan.h) becomes ordinary network, block, layer and property
// precisions. See docs/onnx.md.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_ONNX_ONNXIMPORT_H
#define MIXC_COMPILER_ONNX_ONNXIMPORT_H

#include "io/Safetensors.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mix {

struct PrecisionPlan;

/// How initializers and shapes are imported.
struct OnnxImportOptions {
  /// Initializers of at most this many bytes are inlined as
  /// `mix.weight dense<...>`; larger ones become `mix.weight external
  /// "name"` and their data goes to ImportedOnnxModel::weights.
  int64_t inlineLimitBytes = 1024;
  /// Inline every initializer (`mixc model.onnx`: nothing to bind later).
  bool inlineAll = false;
  /// A static batch size for inputs whose leading dimension is symbolic;
  /// without it that dimension stays the dynamic batch `?`.
  std::optional<int64_t> batch;
  /// Precisions to write into the imported model (may be null).
  const PrecisionPlan *plan = nullptr;
};

/// The result of an import.
struct ImportedOnnxModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Data of the external weights, by the names the model references.
  /// Most point into the parsed ONNX model (TensorToWrite::borrowed).
  std::vector<io::TensorToWrite> weights;
  /// The parsed ONNX model, owner of the bytes `weights` borrow.
  std::shared_ptr<const void> source;
};

/// True if `path` names an ONNX model (ends in `.onnx`).
bool isOnnxPath(llvm::StringRef path);

/// Imports the ONNX model `path`. Fails with one line that starts with the
/// path: every unsupported node at once (name and op type), a dynamic
/// dimension other than the batch (naming its input), a corrupt file, a
/// too new opset, a missing external data file, a bad precision plan.
llvm::Expected<ImportedOnnxModel>
importOnnxFile(llvm::StringRef path, mlir::MLIRContext &context,
               const OnnxImportOptions &options);

/// The ONNX op types (default domain, opset 17) the importer translates,
/// sorted; shape-computing ops are among them (folded at import).
std::vector<std::string> getSupportedOnnxOps();

} // namespace mix

#endif // MIXC_COMPILER_ONNX_ONNXIMPORT_H
