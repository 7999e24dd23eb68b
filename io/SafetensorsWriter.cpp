//===- SafetensorsWriter.cpp - write safetensors weight files ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "io/Common.h"
#include "io/Safetensors.h"
#include "support/Format.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cstring>

namespace json = llvm::json;

namespace mix::io {

using detail::invalid;

namespace {
template <typename T>
TensorToWrite makeTensorImpl(std::string name, std::vector<int64_t> shape,
                             llvm::ArrayRef<T> values, DType dtype) {
  TensorToWrite t{std::move(name), dtype, std::move(shape), {}};
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

/// Checks the name of a tensor to write.
llvm::Error checkName(llvm::StringRef path, const std::string &name) {
  if (name == "__metadata__")
    return invalid(path, "'__metadata__' is reserved and cannot name a "
                         "tensor");
  if (!json::isUTF8(name))
    return invalid(path, "tensor name '", name, "' is not valid UTF-8");
  return llvm::Error::success();
}

/// Checks the shape and bytes of a tensor to write; its byte count in
/// `*bytes`.
llvm::Error checkContents(llvm::StringRef path, const TensorToWrite &t,
                          int64_t *bytes) {
  auto bad = [&](const auto &...pieces) {
    return invalid(path, "tensor '", t.name, "': ", pieces...);
  };
  if (llvm::any_of(t.shape, [](int64_t d) { return d < 0; }))
    return bad("shape ", formatShape(t.shape), " has a negative dimension");
  int64_t elements = 0;
  std::optional<int64_t> needed =
      detail::byteCount(t.shape, dtypeSize(t.dtype), &elements);
  llvm::ArrayRef<uint8_t> data = t.data();
  if (!needed || static_cast<uint64_t>(*needed) != data.size())
    return bad(data.size(), " bytes given, but shape ", formatShape(t.shape),
               " x ", dtypeName(t.dtype), " needs ",
               needed ? std::to_string(*needed) : "2^63 or more");
  if (t.dtype == DType::Bool)
    for (size_t j = 0; j < data.size(); ++j)
      if (data[j] > 1)
        return bad("element ", j, " is byte ", static_cast<int>(data[j]),
                   ", not a BOOL (0 or 1)");
  *bytes = *needed;
  return llvm::Error::success();
}
} // namespace

static_assert(llvm::endianness::native == llvm::endianness::little,
              "makeTensor copies host bytes: mixc targets little-endian hosts");

TensorToWrite makeTensor(std::string name, std::vector<int64_t> shape,
                         llvm::ArrayRef<double> values) {
  return makeTensorImpl(std::move(name), std::move(shape), values, DType::F64);
}
TensorToWrite makeTensor(std::string name, std::vector<int64_t> shape,
                         llvm::ArrayRef<float> values) {
  return makeTensorImpl(std::move(name), std::move(shape), values, DType::F32);
}
TensorToWrite makeTensor(std::string name, std::vector<int64_t> shape,
                         llvm::ArrayRef<int32_t> values) {
  return makeTensorImpl(std::move(name), std::move(shape), values, DType::I32);
}
TensorToWrite makeTensor(std::string name, std::vector<int64_t> shape,
                         llvm::ArrayRef<int8_t> values) {
  return makeTensorImpl(std::move(name), std::move(shape), values, DType::I8);
}

llvm::Expected<SafetensorsPieces>
layOutSafetensors(const std::string &path,
                  llvm::ArrayRef<TensorToWrite> tensors,
                  const std::map<std::string, std::string> &metadata) {
  std::vector<const TensorToWrite *> sorted;
  for (const TensorToWrite &t : tensors)
    sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(),
            [](const TensorToWrite *a, const TensorToWrite *b) {
              return a->name < b->name;
            });

  json::Object header;
  int64_t offset = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const TensorToWrite &t = *sorted[i];
    if (llvm::Error error = checkName(path, t.name))
      return error;
    if (i > 0 && sorted[i - 1]->name == t.name)
      return invalid(path, "tensor '", t.name, "': written twice");
    int64_t bytes = 0;
    if (llvm::Error error = checkContents(path, t, &bytes))
      return error;
    json::Array shape;
    for (int64_t d : t.shape)
      shape.push_back(d);
    header[t.name] =
        json::Object{{"dtype", dtypeName(t.dtype)},
                     {"shape", std::move(shape)},
                     {"data_offsets", json::Array{offset, offset + bytes}}};
    offset += bytes;
  }
  if (!metadata.empty()) {
    json::Object meta;
    for (const auto &kv : metadata) {
      if (!json::isUTF8(kv.first) || !json::isUTF8(kv.second))
        return invalid(path, "metadata '", kv.first, "' is not valid UTF-8");
      meta[kv.first] = kv.second;
    }
    header["__metadata__"] = std::move(meta);
  }

  std::string headerText;
  llvm::raw_string_ostream(headerText) << json::Value(std::move(header));
  // Pad with spaces to a multiple of 8 so the data buffer starts aligned.
  headerText.append((8 - headerText.size() % 8) % 8, ' ');

  SafetensorsPieces pieces;
  pieces.header.assign(8, '\0');
  llvm::support::endian::write64le(pieces.header.data(), headerText.size());
  pieces.header += headerText;
  for (const TensorToWrite *t : sorted) {
    llvm::ArrayRef<uint8_t> data = t->data();
    pieces.data.emplace_back(reinterpret_cast<const char *>(data.data()),
                             data.size());
  }
  return pieces;
}

llvm::Expected<std::string>
serializeSafetensors(const std::string &path,
                     llvm::ArrayRef<TensorToWrite> tensors,
                     const std::map<std::string, std::string> &metadata) {
  llvm::Expected<SafetensorsPieces> pieces =
      layOutSafetensors(path, tensors, metadata);
  if (!pieces)
    return pieces.takeError();
  size_t size = pieces->header.size();
  for (llvm::ArrayRef<char> data : pieces->data)
    size += data.size();
  std::string contents = std::move(pieces->header);
  contents.reserve(size);
  for (llvm::ArrayRef<char> data : pieces->data)
    contents.append(data.begin(), data.end());
  return contents;
}

llvm::Error
writeSafetensors(const std::string &path, llvm::ArrayRef<TensorToWrite> tensors,
                 const std::map<std::string, std::string> &metadata) {
  llvm::Expected<std::string> contents =
      serializeSafetensors(path, tensors, metadata);
  if (!contents)
    return contents.takeError();
  return detail::writeFileAtomically(path, std::move(*contents));
}

} // namespace mix::io
