//===- OnnxAttributes.h - reading ONNX node attributes (internal) ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Internal to MixOnnxImport: the attributes and inputs of a NodeProto with
// their ONNX defaults, shared by the op handlers and the folding.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_ONNX_ONNXATTRIBUTES_H
#define MIXC_COMPILER_ONNX_ONNXATTRIBUTES_H

#include "onnx/onnx_pb.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace mix::onnx_import::attrs {

inline const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                            llvm::StringRef name) {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

inline int64_t attrInt(const onnx::NodeProto &node, llvm::StringRef name,
                       int64_t dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->i() : dflt;
}

/// A float attribute as the decimal number it was written as (1e-5, not
/// the double nearest to the float nearest to 1e-5).
inline double attrFloat(const onnx::NodeProto &node, llvm::StringRef name,
                        double dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  if (!a)
    return dflt;
  // The shortest decimal that rounds to the same float.
  float f = a->f();
  for (int digits = 1; digits <= 9; ++digits) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.*g", digits, double(f));
    double d = std::strtod(text, nullptr);
    if (float(d) == f)
      return d;
  }
  return double(f);
}

inline std::string attrString(const onnx::NodeProto &node, llvm::StringRef name,
                              llvm::StringRef dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->s() : dflt.str();
}

inline std::optional<std::vector<int64_t>> attrInts(const onnx::NodeProto &node,
                                                    llvm::StringRef name) {
  const onnx::AttributeProto *a = findAttr(node, name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

inline llvm::StringRef input(const onnx::NodeProto &node, int i) {
  return i < node.input_size() ? llvm::StringRef(node.input(i)) : "";
}

/// True if output `i` of `node` is named (used).
inline bool hasOutput(const onnx::NodeProto &node, int i) {
  return i < node.output_size() && !node.output(i).empty();
}

/// A 2-D window attribute ([h, w]), default [1, 1].
inline llvm::SmallVector<int64_t> pair(const onnx::NodeProto &node,
                                       llvm::StringRef name) {
  auto values = attrInts(node, name);
  if (!values)
    return {1, 1};
  return llvm::SmallVector<int64_t>(values->begin(), values->end());
}

inline std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += mlir::ShapedType::isDynamic(d) ? "?" : std::to_string(d);
  }
  return s + "]";
}

inline bool isIntegerType(int32_t dtype) {
  return dtype == onnx::TensorProto::INT64 || dtype == onnx::TensorProto::INT32;
}

} // namespace mix::onnx_import::attrs

#endif // MIXC_COMPILER_ONNX_ONNXATTRIBUTES_H
