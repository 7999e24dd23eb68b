//===- Safetensors.cpp - read safetensors weight files -------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The dtypes and the reader. The writer is in SafetensorsWriter.cpp.
//
//===----------------------------------------------------------------------===//

#include "io/Safetensors.h"

#include "io/Common.h"
#include "support/Format.h"
#include "support/InputLimits.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

namespace json = llvm::json;

namespace mix::io {

using detail::invalid;
using detail::jsonKindName;

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

namespace {
struct DTypeEntry {
  DType dtype;
  const char *name;
  int64_t size;
};
constexpr DTypeEntry kDTypes[] = {
    {DType::F64, "F64", 8},   {DType::F32, "F32", 4}, {DType::F16, "F16", 2},
    {DType::BF16, "BF16", 2}, {DType::I64, "I64", 8}, {DType::I32, "I32", 4},
    {DType::I16, "I16", 2},   {DType::I8, "I8", 1},   {DType::U8, "U8", 1},
    {DType::Bool, "BOOL", 1}};

const DTypeEntry &entryOf(DType dtype) {
  return kDTypes[static_cast<int>(dtype)];
}
} // namespace

llvm::StringRef dtypeName(DType dtype) { return entryOf(dtype).name; }

int64_t dtypeSize(DType dtype) { return entryOf(dtype).size; }

std::optional<DType> parseDType(llvm::StringRef name) {
  for (const DTypeEntry &e : kDTypes)
    if (name == e.name)
      return e.dtype;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

/// A non-negative integer, or std::nullopt.
std::optional<int64_t> getNonNegative(const json::Value &v) {
  std::optional<int64_t> i = v.getAsInteger();
  if (!i || *i < 0)
    return std::nullopt;
  return i;
}

/// Parses one tensor entry of the header (everything but the buffer bounds).
llvm::Error parseEntry(llvm::StringRef path, const std::string &name,
                       const json::Value &value, TensorInfo &info,
                       int64_t &begin, int64_t &end) {
  auto bad = [&](const auto &...pieces) {
    return invalid(path, "tensor '", name, "': ", pieces...);
  };
  const json::Object *entry = value.getAsObject();
  if (!entry)
    return bad("entry must be an object, got ", jsonKindName(value));
  for (const char *key : {"dtype", "shape", "data_offsets"})
    if (!entry->get(key))
      return bad("missing \"", key, "\"");

  const json::Value &dtypeValue = *entry->get("dtype");
  std::optional<llvm::StringRef> dtypeText = dtypeValue.getAsString();
  if (!dtypeText)
    return bad("\"dtype\" must be a string, got ", jsonKindName(dtypeValue));
  std::optional<DType> dtype = parseDType(*dtypeText);
  if (!dtype)
    return bad("unsupported dtype '", *dtypeText,
               "' (mixc reads F64, F32, F16, BF16, I64, I32, I16, I8, U8, "
               "BOOL)");

  const json::Array *shape = entry->getArray("shape");
  if (!shape)
    return bad("\"shape\" must be an array of non-negative integers, got ",
               jsonKindName(*entry->get("shape")));
  std::vector<int64_t> dims;
  for (const json::Value &d : *shape) {
    std::optional<int64_t> dim = getNonNegative(d);
    if (!dim)
      return bad("\"shape\" must be an array of non-negative integers");
    dims.push_back(*dim);
  }

  const json::Array *offsets = entry->getArray("data_offsets");
  std::optional<int64_t> b, e;
  if (offsets && offsets->size() == 2) {
    b = getNonNegative((*offsets)[0]);
    e = getNonNegative((*offsets)[1]);
  }
  if (!b || !e)
    return bad("\"data_offsets\" must be two non-negative integers "
               "[begin, end]");
  if (*b > *e)
    return bad("data_offsets [", *b, ", ", *e, "] end before they begin");

  int64_t elements = 0;
  std::optional<int64_t> needed =
      detail::byteCount(dims, dtypeSize(*dtype), &elements);
  if (!needed)
    return bad("shape ", formatShape(dims), " x ", dtypeName(*dtype),
               " needs 2^63 bytes or more");
  if (*e - *b != *needed)
    return bad("data_offsets [", *b, ", ", *e, "] hold ", *e - *b,
               " bytes, but shape ", formatShape(dims), " x ",
               dtypeName(*dtype), " needs ", *needed);

  info.name = name;
  info.dtype = *dtype;
  info.shape = std::move(dims);
  info.numElements = elements;
  info.byteSize = *needed;
  begin = *b;
  end = *e;
  return llvm::Error::success();
}

/// Reads the "__metadata__" entry into `metadata`.
llvm::Error parseMetadata(llvm::StringRef path, const json::Value &value,
                          std::map<std::string, std::string> &metadata) {
  const json::Object *meta = value.getAsObject();
  if (!meta)
    return invalid(path, "\"__metadata__\" must be an object, got ",
                   jsonKindName(value));
  for (const auto &kv : *meta) {
    std::optional<llvm::StringRef> s = kv.second.getAsString();
    if (!s)
      return invalid(path, "\"__metadata__\" values must be strings; '",
                     llvm::StringRef(kv.first), "' is ",
                     jsonKindName(kv.second));
    metadata[kv.first.str()] = s->str();
  }
  return llvm::Error::success();
}

/// The bytes [begin, end) of one tensor in the data buffer.
struct Range {
  int64_t begin, end;
  const std::string *name;
};

/// Fails if two of `ranges` overlap (the first pair in offset order).
llvm::Error checkOverlaps(llvm::StringRef path, std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) {
    return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
  });
  for (size_t i = 1, last = 0; i < ranges.size(); ++i) {
    const Range &prev = ranges[last], &cur = ranges[i];
    if (cur.begin < prev.end)
      return invalid(path, "tensors '", *prev.name, "' [", prev.begin, ", ",
                     prev.end, "] and '", *cur.name, "' [", cur.begin, ", ",
                     cur.end, "] overlap");
    last = i;
  }
  return llvm::Error::success();
}

/// Decodes an IEEE binary16 value exactly.
double decodeF16(uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  if (exponent == 31)
    return mantissa ? std::copysign(std::nan(""), sign) : sign * HUGE_VAL;
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

/// Decodes a bfloat16 value exactly (the top half of an IEEE binary32).
double decodeBF16(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

} // namespace

//===----------------------------------------------------------------------===//
// SafetensorsFile
//===----------------------------------------------------------------------===//

SafetensorsFile::SafetensorsFile(SafetensorsFile &&) noexcept = default;
SafetensorsFile &
SafetensorsFile::operator=(SafetensorsFile &&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

llvm::Expected<SafetensorsFile> SafetensorsFile::open(const std::string &path) {
  // Mapped, not read: but only a regular file (a device or FIFO is an error).
  if (llvm::Error e = requireRegularFile(path, "weights file"))
    return std::move(e);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return detail::ioError(path, "cannot read: ", buffer.getError());

  SafetensorsFile file;
  file.path_ = path;
  file.buffer_ = std::move(*buffer);
  const uint8_t *bytes =
      reinterpret_cast<const uint8_t *>(file.buffer_->getBufferStart());
  const uint64_t size = file.buffer_->getBufferSize();

  if (size == 0)
    return invalid(path, "the file is empty (a safetensors file starts with "
                         "an 8-byte header length)");
  if (size < 8)
    return invalid(path, "truncated: ", size,
                   " bytes, but a safetensors file starts with an 8-byte "
                   "header length");
  const uint64_t headerSize = llvm::support::endian::read64le(bytes);
  if (headerSize > size - 8)
    return invalid(path, "truncated: header declares ", headerSize,
                   " bytes but only ", size - 8, " follow the length prefix");

  if (headerSize > limits::kMaxSafetensorsHeaderBytes)
    return invalid(path, "the header declares ", headerSize,
                   " bytes; the safetensors format allows at most ",
                   limits::kMaxSafetensorsHeaderBytes);
  llvm::StringRef headerText(reinterpret_cast<const char *>(bytes + 8),
                             headerSize);
  if (llvm::Error e = checkNestingDepth(headerText, limits::kMaxJSONNesting,
                                        NestingSyntax::json, path))
    return std::move(e);
  if (llvm::Error error = file.parseHeader(headerText, bytes + 8 + headerSize,
                                           size - 8 - headerSize))
    return std::move(error);
  return std::move(file);
}

llvm::Error SafetensorsFile::parseHeader(llvm::StringRef headerText,
                                         const uint8_t *data,
                                         uint64_t dataSize) {
  llvm::Expected<json::Value> header = json::parse(headerText);
  if (!header)
    return detail::jsonParseError(path_, "JSON header", header.takeError());
  if (std::optional<std::string> dup = detail::findDuplicateKey(headerText))
    return invalid(path_, "the header has the key '", *dup, "' twice");
  const json::Object *object = header->getAsObject();
  if (!object)
    return invalid(path_, "the header must be a JSON object, got ",
                   jsonKindName(*header));

  // Visit the entries in sorted order so the first error is deterministic.
  std::vector<std::string> keys;
  for (const auto &kv : *object)
    keys.push_back(kv.first.str());
  std::sort(keys.begin(), keys.end());

  std::vector<Range> ranges;
  for (const std::string &key : keys) {
    const json::Value &value = *object->get(key);
    if (key == "__metadata__") {
      if (llvm::Error error = parseMetadata(path_, value, metadata_))
        return error;
      continue;
    }
    TensorInfo info;
    int64_t begin = 0, end = 0;
    if (llvm::Error error = parseEntry(path_, key, value, info, begin, end))
      return error;
    if (static_cast<uint64_t>(end) > dataSize)
      return invalid(path_, "tensor '", key, "': data_offsets [", begin, ", ",
                     end, "] end beyond the ", dataSize, "-byte data buffer");
    info.data = data + begin;
    auto it = tensors_.emplace(key, std::move(info)).first;
    // Empty tensors occupy no bytes and cannot overlap anything.
    if (begin != end)
      ranges.push_back({begin, end, &it->first});
  }
  return checkOverlaps(path_, std::move(ranges));
}

const TensorInfo *SafetensorsFile::find(llvm::StringRef name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> result;
  result.reserve(tensors_.size());
  for (const auto &kv : tensors_)
    result.push_back(kv.first);
  return result;
}

llvm::Expected<const TensorInfo *>
SafetensorsFile::get(llvm::StringRef name, DType expectedDtype,
                     llvm::ArrayRef<int64_t> expectedShape) const {
  const TensorInfo *info = find(name);
  if (!info) {
    constexpr size_t kMaxListed = 8;
    std::vector<std::string> all = names();
    std::string list;
    if (all.empty()) {
      list = "the file has no tensors";
    } else {
      size_t shown = std::min(all.size(), kMaxListed);
      list =
          "the file has: " + llvm::join(all.begin(), all.begin() + shown, ", ");
      if (all.size() > shown)
        list += detail::concat(", ... (", all.size() - shown, " more)");
    }
    return detail::notFound(path_, "no tensor '", name, "' (", list, ")");
  }
  if (info->dtype != expectedDtype)
    return invalid(path_, "tensor '", name, "' has dtype ",
                   dtypeName(info->dtype), ", the model declares ",
                   dtypeName(expectedDtype));
  if (llvm::ArrayRef<int64_t>(info->shape) != expectedShape)
    return invalid(path_, "tensor '", name, "' has shape ",
                   formatShape(info->shape), ", the model declares ",
                   formatShape(expectedShape));
  return info;
}

llvm::Expected<std::vector<double>>
SafetensorsFile::readAsDouble(llvm::StringRef name) const {
  const TensorInfo *info = find(name);
  if (!info)
    return detail::notFound(path_, "no tensor '", name, "'");
  namespace endian = llvm::support::endian;
  const uint8_t *p = info->data;
  const int64_t n = info->numElements;
  std::vector<double> out(n);
  for (int64_t i = 0; i < n; ++i) {
    switch (info->dtype) {
    case DType::F64: {
      uint64_t bits = endian::read64le(p + 8 * i);
      std::memcpy(&out[i], &bits, 8);
      break;
    }
    case DType::F32: {
      uint32_t bits = endian::read32le(p + 4 * i);
      float f;
      std::memcpy(&f, &bits, 4);
      out[i] = f;
      break;
    }
    case DType::F16:
      out[i] = decodeF16(endian::read16le(p + 2 * i));
      break;
    case DType::BF16:
      out[i] = decodeBF16(endian::read16le(p + 2 * i));
      break;
    case DType::I64: {
      const int64_t v = static_cast<int64_t>(endian::read64le(p + 8 * i));
      const double d = static_cast<double>(v);
      // 2^63 itself is out of int64 range, so test it before converting back.
      if (d >= 9223372036854775808.0 || static_cast<int64_t>(d) != v)
        return detail::fileError(std::errc::result_out_of_range, path_,
                                 "tensor '", name, "': element ", i, " (", v,
                                 ") has no exact double value");
      out[i] = d;
      break;
    }
    case DType::I32:
      out[i] = static_cast<int32_t>(endian::read32le(p + 4 * i));
      break;
    case DType::I16:
      out[i] = static_cast<int16_t>(endian::read16le(p + 2 * i));
      break;
    case DType::I8:
      out[i] = static_cast<int8_t>(p[i]);
      break;
    case DType::U8:
      out[i] = p[i];
      break;
    case DType::Bool:
      if (p[i] > 1)
        return invalid(path_, "tensor '", name, "': element ", i, " is byte ",
                       static_cast<int>(p[i]), ", not a BOOL (0 or 1)");
      out[i] = p[i];
      break;
    }
  }
  return out;
}

} // namespace mix::io
