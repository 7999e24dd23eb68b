//===- OnnxTensors.cpp - initializer data and mix.weight ops --------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;

static_assert(llvm::endianness::native == llvm::endianness::little,
              "ONNX raw_data is little-endian; MLIR's raw buffers are in host "
              "byte order");

int64_t Constant::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return -1;
  int64_t bytes;
  if (llvm::MulOverflow(n, int64_t(8), bytes))
    return -1;
  return n;
}

std::string mix::onnx_import::elementTypeName(int32_t dtype) {
  std::string number = std::to_string(dtype);
  if (!onnx::TensorProto::DataType_IsValid(dtype) ||
      dtype == onnx::TensorProto::UNDEFINED)
    return number;
  return llvm::StringRef(onnx::TensorProto::DataType_Name(
                             onnx::TensorProto::DataType(dtype)))
             .lower() +
         " (" + number + ")";
}

namespace {

/// Element type and size of the ONNX data types a weight may have.
struct ElementInfo {
  Type type;
  int64_t size = 0;
  std::optional<io::DType> dtype;
};

ElementInfo elementInfo(MLIRContext &context, int32_t dtype) {
  Builder b(&context);
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return {b.getF32Type(), 4, io::DType::F32};
  case onnx::TensorProto::DOUBLE:
    return {b.getF64Type(), 8, io::DType::F64};
  case onnx::TensorProto::FLOAT16:
    return {b.getF16Type(), 2, io::DType::F16};
  case onnx::TensorProto::BFLOAT16:
    return {b.getBF16Type(), 2, io::DType::BF16};
  case onnx::TensorProto::INT64:
    return {b.getI64Type(), 8, io::DType::I64};
  case onnx::TensorProto::INT32:
    return {b.getI32Type(), 4, io::DType::I32};
  case onnx::TensorProto::INT8:
    return {b.getI8Type(), 1, io::DType::I8};
  default:
    return {};
  }
}

/// The little-endian bytes of `t` (`n` elements of `size` bytes), from
/// raw_data or the typed fields; an error message otherwise.
std::optional<std::vector<char>> readBytes(const onnx::TensorProto &t,
                                           int64_t n, int64_t size,
                                           std::string &error) {
  std::vector<char> bytes;
  if (t.has_raw_data()) {
    if (int64_t(t.raw_data().size()) != n * size) {
      error = "has " + std::to_string(t.raw_data().size()) +
              " bytes of data, its shape needs " + std::to_string(n * size);
      return std::nullopt;
    }
    bytes.assign(t.raw_data().begin(), t.raw_data().end());
    return bytes;
  }
  auto copy = [&](const auto &field) -> bool {
    if (int64_t(field.size()) != n) {
      error = "has " + std::to_string(field.size()) +
              " values, its shape needs " + std::to_string(n);
      return false;
    }
    bytes.resize(n * size);
    for (int64_t i = 0; i < n; ++i) {
      auto v = field.Get(int(i));
      std::memcpy(bytes.data() + i * size, &v, size);
    }
    return true;
  };
  bool ok = false;
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT:
    ok = copy(t.float_data());
    break;
  case onnx::TensorProto::DOUBLE:
    ok = copy(t.double_data());
    break;
  case onnx::TensorProto::INT64:
    ok = copy(t.int64_data());
    break;
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::INT8: // int32_data, one value each (low byte)
    ok = copy(t.int32_data());
    break;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: {
    // 16-bit values are stored in the low half of int32_data.
    if (int64_t(t.int32_data().size()) != n) {
      error = "has " + std::to_string(t.int32_data().size()) +
              " values, its shape needs " + std::to_string(n);
      return std::nullopt;
    }
    bytes.resize(n * 2);
    for (int64_t i = 0; i < n; ++i) {
      uint16_t v = uint16_t(t.int32_data(int(i)));
      std::memcpy(bytes.data() + i * 2, &v, 2);
    }
    ok = true;
    break;
  }
  default:
    error = "has an unsupported data type";
  }
  if (!ok)
    return std::nullopt;
  return bytes;
}

} // namespace

std::optional<std::vector<int64_t>>
Importer::constantInts(llvm::StringRef name) const {
  const Constant *c = constant(name);
  if (!c)
    return std::nullopt;
  if (c->ints)
    return c->ints;
  if (!c->proto)
    return std::nullopt;
  const onnx::TensorProto &t = *c->proto;
  int64_t n = c->numElements();
  if (n < 0)
    return std::nullopt;
  std::vector<int64_t> result;
  std::string error;
  switch (t.data_type()) {
  case onnx::TensorProto::INT64: {
    auto bytes = readBytes(t, n, 8, error);
    if (!bytes)
      return std::nullopt;
    result.resize(n);
    std::memcpy(result.data(), bytes->data(), n * 8);
    return result;
  }
  case onnx::TensorProto::INT32: {
    auto bytes = readBytes(t, n, 4, error);
    if (!bytes)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      int32_t v;
      std::memcpy(&v, bytes->data() + i * 4, 4);
      result.push_back(v);
    }
    return result;
  }
  default:
    return std::nullopt;
  }
}

Value Importer::weight(const onnx::NodeProto &node, const Constant &c,
                       bool transpose,
                       std::optional<std::pair<int64_t, int64_t>> columns) {
  ElementInfo info = elementInfo(context, c.dtype);
  if (!info.type) {
    problem(node, "constant '" + c.name + "' has the ONNX element type " +
                      elementTypeName(c.dtype) +
                      ", which mix weights cannot hold");
    return {};
  }
  std::vector<char> bytes;
  int64_t n = c.numElements();
  if (n < 0) {
    problem(node, "constant '" + c.name + "' has an invalid shape");
    return {};
  }
  // External weights are written once per (name, layout); returns the name
  // and whether it is new.
  auto externalName = [&]() -> std::pair<std::string, bool> {
    std::string name = c.name.empty() ? "weight" : c.name;
    if (columns)
      name += ".columns" + std::to_string(columns->first) + "_" +
              std::to_string(columns->second);
    auto it = externalNames.find(name);
    if (it != externalNames.end() && it->second != transpose)
      name += ".transposed";
    return {name, externalNames.try_emplace(name, transpose).second};
  };
  // An external weight in the model's layout is not copied: the weights
  // file is written from the model's own bytes (ImportedOnnxModel keeps
  // the model alive), so an import holds one copy of its weights.
  int64_t byteCount = n * info.size;
  bool external = !options.inlineAll && byteCount > options.inlineLimitBytes;
  if (external && !transpose && !columns && c.proto &&
      c.proto->has_raw_data() &&
      int64_t(c.proto->raw_data().size()) == byteCount) {
    auto type = RankedTensorType::get(c.shape, info.type);
    auto [name, inserted] = externalName();
    if (inserted) {
      io::TensorToWrite tensor;
      tensor.name = name;
      tensor.dtype = *info.dtype;
      tensor.shape = c.shape;
      const std::string &raw = c.proto->raw_data();
      tensor.borrowed = llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(raw.data()), raw.size());
      externalWeights.push_back(std::move(tensor));
    }
    return WeightOp::create(builder, loc, type, ElementsAttr(),
                            builder.getStringAttr(name))
        .getResult();
  }
  if (c.proto) {
    std::string error;
    auto read = readBytes(*c.proto, n, info.size, error);
    if (!read) {
      problem(node, "constant '" + c.name + "' " + error);
      return {};
    }
    bytes = std::move(*read);
  } else if (c.ints && (info.size == 8 || info.size == 4)) {
    if (llvm::is_contained(*c.ints, kBatchDim)) {
      problem(node, "'" + c.name + "' depends on the dynamic batch size");
      return {};
    }
    // Folded integers (int64, or int32 narrowed as Cast does).
    bytes.resize(n * info.size);
    for (int64_t i = 0; i < n; ++i) {
      int64_t wide = (*c.ints)[i];
      int32_t narrow = int32_t(wide);
      std::memcpy(bytes.data() + i * info.size,
                  info.size == 8 ? static_cast<const void *>(&wide)
                                 : static_cast<const void *>(&narrow),
                  info.size);
    }
  } else {
    problem(node, "constant '" + c.name + "' has no data");
    return {};
  }
  std::vector<int64_t> shape = c.shape;
  if (columns) {
    // The columns [first, second) of the last dimension.
    int64_t width = shape.empty() ? 0 : shape.back();
    auto [begin, end] = *columns;
    if (shape.empty() || begin < 0 || end > width || begin >= end) {
      problem(node, "cannot take the columns [" + llvm::Twine(begin) + ", " +
                        llvm::Twine(end) + ") of the constant '" + c.name +
                        "'");
      return {};
    }
    int64_t rows = n / width, kept = end - begin;
    std::vector<char> t(rows * kept * info.size);
    for (int64_t i = 0; i < rows; ++i)
      std::memcpy(t.data() + i * kept * info.size,
                  bytes.data() + (i * width + begin) * info.size,
                  kept * info.size);
    bytes = std::move(t);
    shape.back() = kept;
  }
  if (transpose) {
    if (shape.size() != 2) {
      problem(node, "cannot transpose the " + llvm::Twine(shape.size()) +
                        "-D constant '" + c.name + "'");
      return {};
    }
    int64_t rows = shape[0], cols = shape[1];
    std::vector<char> t(bytes.size());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        std::memcpy(t.data() + (j * rows + i) * info.size,
                    bytes.data() + (i * cols + j) * info.size, info.size);
    bytes = std::move(t);
    std::swap(shape[0], shape[1]);
  }
  auto type = RankedTensorType::get(shape, info.type);
  if (!external) {
    DenseElementsAttr data = DenseElementsAttr::getFromRawBuffer(
        type, llvm::ArrayRef<char>(bytes.data(), bytes.size()));
    return WeightOp::create(builder, loc, type, data, StringAttr()).getResult();
  }
  auto [name, inserted] = externalName();
  if (inserted) {
    io::TensorToWrite tensor;
    tensor.name = name;
    tensor.dtype = *info.dtype;
    tensor.shape = shape;
    tensor.bytes.assign(bytes.begin(), bytes.end());
    externalWeights.push_back(std::move(tensor));
  }
  return WeightOp::create(builder, loc, type, ElementsAttr(),
                          builder.getStringAttr(name))
      .getResult();
}

std::optional<double> Importer::constantScalar(llvm::StringRef name) const {
  const Constant *c = constant(name);
  if (!c || !c->proto || c->numElements() != 1)
    return std::nullopt;
  std::string error;
  switch (c->dtype) {
  case onnx::TensorProto::FLOAT: {
    auto bytes = readBytes(*c->proto, 1, 4, error);
    if (!bytes)
      return std::nullopt;
    float f;
    std::memcpy(&f, bytes->data(), 4);
    return double(f);
  }
  case onnx::TensorProto::DOUBLE: {
    auto bytes = readBytes(*c->proto, 1, 8, error);
    if (!bytes)
      return std::nullopt;
    double d;
    std::memcpy(&d, bytes->data(), 8);
    return d;
  }
  default:
    return std::nullopt;
  }
}

std::optional<std::vector<double>>
Importer::constantFloats(llvm::StringRef name) const {
  const Constant *c = constant(name);
  int64_t n = c ? c->numElements() : -1;
  if (!c || !c->proto || n < 0 || n > 4096)
    return std::nullopt;
  std::string error;
  std::vector<double> values(n);
  if (c->dtype == onnx::TensorProto::FLOAT) {
    auto bytes = readBytes(*c->proto, n, 4, error);
    if (!bytes)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, bytes->data() + 4 * i, 4);
      values[i] = f;
    }
    return values;
  }
  if (c->dtype == onnx::TensorProto::DOUBLE) {
    auto bytes = readBytes(*c->proto, n, 8, error);
    if (!bytes)
      return std::nullopt;
    std::memcpy(values.data(), bytes->data(), 8 * n);
    return values;
  }
  return std::nullopt;
}
