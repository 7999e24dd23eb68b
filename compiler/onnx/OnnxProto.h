//===- OnnxProto.h - reading and checking ONNX models ---------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The only interface to Debian's ONNX library (libonnx, ONNX 1.12): parse a
// ModelProto from a file, check it, convert it to the one opset the importer
// supports and infer the shape of every value. libonnx reports errors with
// C++ exceptions; this library catches them all and returns one-line
// llvm::Error messages that start with the model's path.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_ONNX_ONNXPROTO_H
#define MIXC_COMPILER_ONNX_ONNXPROTO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace mix::onnx_import {

/// The opset of the default ONNX domain every model is converted to (the
/// newest that ONNX 1.12 knows), so op handlers are written once.
constexpr int64_t kOnnxOpset = 17;

/// One node the importer does not support: its name and `domain.OpType`.
struct UnsupportedNode {
  std::string name;
  std::string opType;
};

/// What readOnnxModel does besides parsing.
struct ReadOptions {
  /// Gives the leading dimension of every graph input that has a symbolic
  /// (or unknown) one this static size before shape inference.
  std::optional<int64_t> batch;
  /// Called with the op type (with its domain for other domains than the
  /// default one, "com.microsoft.Gelu") of every node: returns false for ops
  /// the importer cannot translate. All of them are reported in one error
  /// before the model is checked.
  std::function<bool(llvm::StringRef domain, llvm::StringRef opType)>
      isSupported;
};

/// Reads the ONNX model `path`: parses it (a corrupt or truncated file is
/// an error), requires the default domain's opset to be at most kOnnxOpset,
/// lists every unsupported node at once, loads the data of initializers
/// stored in external files (beside the model; missing files are errors),
/// runs ONNX's checker, converts older opsets to kOnnxOpset and runs shape
/// inference with data propagation. Errors: "<path>: <one line>".
llvm::Expected<std::unique_ptr<onnx::ModelProto>>
readOnnxModel(llvm::StringRef path, const ReadOptions &options);

/// Deletes a ModelProto (for unique_ptr users that only see the forward
/// declaration).
struct ModelDeleter {
  void operator()(onnx::ModelProto *model) const;
};

} // namespace mix::onnx_import

namespace std {
template <> struct default_delete<onnx::ModelProto> {
  void operator()(onnx::ModelProto *model) const {
    mix::onnx_import::ModelDeleter()(model);
  }
};
} // namespace std

#endif // MIXC_COMPILER_ONNX_ONNXPROTO_H
