//===- Weights.cpp - binding external weights from safetensors files ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Weights.h"
#include "compiler/ModelLoader.h"
#include "dialect/MixOps.h"
#include "io/Safetensors.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "support/Error.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"

using namespace mlir;
using namespace mix;

std::optional<io::DType> mix::getSafetensorsDType(Type type) {
  if (type.isF64())
    return io::DType::F64;
  if (type.isF32())
    return io::DType::F32;
  if (type.isF16())
    return io::DType::F16;
  if (type.isBF16())
    return io::DType::BF16;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return std::nullopt;
  if (integer.isUnsigned())
    return integer.getWidth() == 8 ? std::optional(io::DType::U8)
                                   : std::nullopt;
  switch (integer.getWidth()) {
  case 1:
    return io::DType::Bool;
  case 64:
    return io::DType::I64;
  case 32:
    return io::DType::I32;
  case 16:
    return io::DType::I16;
  case 8:
    return io::DType::I8;
  default:
    return std::nullopt;
  }
}

llvm::Error mix::bindWeights(ModuleOp module, const io::SafetensorsFile &file,
                             std::vector<std::string> *unused) {
  static_assert(llvm::endianness::native == llvm::endianness::little,
                "safetensors data is little-endian; MLIR's raw buffers are in "
                "host byte order");
  // Check every reference before changing anything, so a failure leaves the
  // module as it was.
  SmallVector<std::pair<WeightOp, DenseElementsAttr>> bound;
  llvm::StringSet<> used;
  std::optional<std::string> error;
  module.walk([&](WeightOp weight) {
    StringAttr ref = weight.getRefAttr();
    if (!ref)
      return WalkResult::advance();
    std::string prefix = formatLocation(weight.getLoc()) + ": weight '" +
                         ref.getValue().str() + "': ";
    auto type = cast<RankedTensorType>(weight.getType());
    std::optional<io::DType> dtype = getSafetensorsDType(type.getElementType());
    if (!dtype) {
      std::string typeName;
      llvm::raw_string_ostream os(typeName);
      os << type.getElementType();
      error = prefix + "element type " + typeName +
              " cannot be read from a safetensors file";
      return WalkResult::interrupt();
    }
    llvm::Expected<const io::TensorInfo *> tensor =
        file.get(ref.getValue(), *dtype, type.getShape());
    if (!tensor) {
      error = prefix + llvm::toString(tensor.takeError());
      return WalkResult::interrupt();
    }
    ArrayRef<char> raw(reinterpret_cast<const char *>((*tensor)->data),
                       static_cast<size_t>((*tensor)->byteSize));
    bool splat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, raw, splat)) {
      error = prefix + file.path() + ": tensor '" + ref.getValue().str() +
              "' has " + std::to_string(raw.size()) +
              " bytes, which is not valid data of " + "the declared type";
      return WalkResult::interrupt();
    }
    bound.emplace_back(weight, DenseElementsAttr::getFromRawBuffer(type, raw));
    used.insert(ref.getValue());
    return WalkResult::advance();
  });
  if (error)
    return makeError(*error);
  for (auto &[weight, value] : bound) {
    weight.setValueAttr(value);
    weight.removeRefAttr();
  }
  if (unused)
    for (const std::string &name : file.names())
      if (!used.contains(name))
        unused->push_back(name);
  return llvm::Error::success();
}

llvm::Error mix::requireInlineWeights(ModuleOp module) {
  std::optional<std::string> error;
  module.walk([&](WeightOp weight) {
    if (StringAttr ref = weight.getRefAttr()) {
      error = formatLocation(weight.getLoc()) + ": external weight '" +
              ref.getValue().str() + "' needs --weights <file.safetensors>";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return error ? makeError(*error) : llvm::Error::success();
}
