//===- Weights.h - binding external weights from safetensors files --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A model may declare weights by name (`mix.weight external "fc1.weight" :
// tensor<8x4xf32>`) instead of carrying their data. Before lowering, the
// driver replaces every such reference by the data of the tensor of that name
// in a safetensors file, after checking that the file's dtype is the declared
// element type and its shape the declared shape.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_WEIGHTS_H
#define MIXC_COMPILER_WEIGHTS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mix {
namespace io {
class SafetensorsFile;
enum class DType;
} // namespace io

/// The safetensors dtype that stores elements of `type` exactly as the model
/// declares them: f64/f32/f16/bf16 <-> F64/F32/F16/BF16, i64/i32/i16/i8
/// (signless or signed) <-> I64/I32/I16/I8, ui8 <-> U8, i1 (a mask) <-> BOOL.
/// std::nullopt for any other type.
std::optional<io::DType> getSafetensorsDType(mlir::Type elementType);

/// Replaces every external `mix.weight` of `module` by the data of the tensor
/// of the same name in `file` (a DenseElementsAttr of the declared type).
/// Fails on the first weight whose tensor is missing or whose dtype or shape
/// differs from the declaration, with a one-line message naming the weight's
/// location and the problem:
///
///   model.mlir:21:10: weight 'conv1.weight': w.safetensors: tensor
///   'conv1.weight' has shape [8, 1, 3, 3], the model declares [16, 1, 3, 3]
///
/// On failure the module is left unchanged. Tensors of the file that the
/// model does not use are ignored; their names are appended to `unused` if
/// given.
llvm::Error bindWeights(mlir::ModuleOp module, const io::SafetensorsFile &file,
                        std::vector<std::string> *unused = nullptr);

/// Fails if `module` still has an external weight:
///
///   model.mlir:12:5: external weight 'fc1.weight' needs
///   --weights <file.safetensors>
llvm::Error requireInlineWeights(mlir::ModuleOp module);

} // namespace mix

#endif // MIXC_COMPILER_WEIGHTS_H
