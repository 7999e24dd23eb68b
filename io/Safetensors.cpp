//===- Safetensors.cpp - read and write safetensors weight files ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "io/Safetensors.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>

namespace json = llvm::json;

namespace mix::io {

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

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

template <typename... Args>
absl::Status fileError(absl::StatusCode code, llvm::StringRef path,
                       const Args &...args) {
  return absl::Status(
      code,
      absl::StrCat(absl::string_view(path.data(), path.size()), ": ", args...));
}

template <typename... Args>
absl::Status invalid(llvm::StringRef path, const Args &...args) {
  return fileError(absl::StatusCode::kInvalidArgument, path, args...);
}

/// An I/O failure: the status code follows the errno value.
absl::Status ioError(llvm::StringRef path, llvm::StringRef what,
                     std::error_code ec) {
  return fileError(absl::ErrnoToStatusCode(ec.value()), path, what.str(),
                   ec.message());
}

absl::string_view sv(llvm::StringRef s) { return {s.data(), s.size()}; }

/// product(shape) * elementSize, or std::nullopt on int64 overflow. Any zero
/// dimension makes the product zero, whatever the other dimensions are.
std::optional<int64_t> byteCount(llvm::ArrayRef<int64_t> shape,
                                 int64_t elementSize, int64_t *elements) {
  if (llvm::is_contained(shape, 0)) {
    *elements = 0;
    return 0;
  }
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      return std::nullopt;
  int64_t bytes;
  if (__builtin_mul_overflow(n, elementSize, &bytes))
    return std::nullopt;
  *elements = n;
  return bytes;
}

/// A non-negative integer, or std::nullopt.
std::optional<int64_t> getNonNegative(const json::Value &v) {
  std::optional<int64_t> i = v.getAsInteger();
  if (!i || *i < 0)
    return std::nullopt;
  return i;
}

/// Parses one tensor entry of the header (everything but the buffer bounds).
absl::Status parseEntry(llvm::StringRef path, const std::string &name,
                        const json::Value &value, TensorInfo &info,
                        int64_t &begin, int64_t &end) {
  auto bad = [&](const auto &...args) {
    return invalid(path, "tensor '", name, "': ", args...);
  };
  const json::Object *entry = value.getAsObject();
  if (!entry)
    return bad("entry must be an object, got ", detail::jsonKindName(value));
  for (const char *key : {"dtype", "shape", "data_offsets"})
    if (!entry->get(key))
      return bad("missing \"", key, "\"");

  const json::Value &dtypeValue = *entry->get("dtype");
  std::optional<llvm::StringRef> dtypeText = dtypeValue.getAsString();
  if (!dtypeText)
    return bad("\"dtype\" must be a string, got ",
               detail::jsonKindName(dtypeValue));
  std::optional<DType> dtype = parseDType(*dtypeText);
  if (!dtype)
    return bad("unsupported dtype '", sv(*dtypeText),
               "' (mixc reads F64, F32, F16, BF16, I64, I32, I16, I8, U8, "
               "BOOL)");

  const json::Array *shape = entry->getArray("shape");
  if (!shape)
    return bad("\"shape\" must be an array of non-negative integers, got ",
               detail::jsonKindName(*entry->get("shape")));
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
  std::optional<int64_t> needed = byteCount(dims, dtypeSize(*dtype), &elements);
  if (!needed)
    return bad("shape ", formatShape(dims), " x ", sv(dtypeName(*dtype)),
               " needs 2^63 bytes or more");
  if (*e - *b != *needed)
    return bad("data_offsets [", *b, ", ", *e, "] hold ", *e - *b,
               " bytes, but shape ", formatShape(dims), " x ",
               sv(dtypeName(*dtype)), " needs ", *needed);

  info.name = name;
  info.dtype = *dtype;
  info.shape = std::move(dims);
  info.numElements = elements;
  info.byteSize = *needed;
  begin = *b;
  end = *e;
  return absl::OkStatus();
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

absl::StatusOr<SafetensorsFile> SafetensorsFile::open(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return ioError(path, "cannot read: ", buffer.getError());

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

  llvm::StringRef headerText(reinterpret_cast<const char *>(bytes + 8),
                             headerSize);
  llvm::Expected<json::Value> header = json::parse(headerText);
  if (!header)
    return detail::jsonParseError(path, "JSON header", header.takeError());
  if (std::optional<std::string> dup = detail::findDuplicateKey(headerText))
    return invalid(path, "the header has the key '", *dup, "' twice");
  const json::Object *object = header->getAsObject();
  if (!object)
    return invalid(path, "the header must be a JSON object, got ",
                   detail::jsonKindName(*header));

  // Visit the entries in sorted order so the first error is deterministic.
  std::vector<std::string> keys;
  for (const auto &kv : *object)
    keys.push_back(kv.first.str());
  std::sort(keys.begin(), keys.end());

  struct Range {
    int64_t begin, end;
    const std::string *name;
  };
  std::vector<Range> ranges;
  const uint64_t dataSize = size - 8 - headerSize;
  const uint8_t *data = bytes + 8 + headerSize;
  for (const std::string &key : keys) {
    const json::Value &value = *object->get(key);
    if (key == "__metadata__") {
      const json::Object *meta = value.getAsObject();
      if (!meta)
        return invalid(path, "\"__metadata__\" must be an object, got ",
                       detail::jsonKindName(value));
      for (const auto &kv : *meta) {
        std::optional<llvm::StringRef> s = kv.second.getAsString();
        if (!s)
          return invalid(path, "\"__metadata__\" values must be strings; '",
                         sv(kv.first), "' is ",
                         detail::jsonKindName(kv.second));
        file.metadata_[kv.first.str()] = s->str();
      }
      continue;
    }
    TensorInfo info;
    int64_t begin = 0, end = 0;
    if (absl::Status s = parseEntry(path, key, value, info, begin, end);
        !s.ok())
      return s;
    if (static_cast<uint64_t>(end) > dataSize)
      return invalid(path, "tensor '", key, "': data_offsets [", begin, ", ",
                     end, "] end beyond the ", dataSize, "-byte data buffer");
    info.data = data + begin;
    auto it = file.tensors_.emplace(key, std::move(info)).first;
    if (begin != end)
      ranges.push_back({begin, end, &it->first});
  }

  // Empty tensors occupy no bytes and cannot overlap anything.
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
  return file;
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

absl::StatusOr<const TensorInfo *>
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
          absl::StrCat("the file has: ",
                       absl::StrJoin(all.begin(), all.begin() + shown, ", "));
      if (all.size() > shown)
        absl::StrAppend(&list, ", ... (", all.size() - shown, " more)");
    }
    return fileError(absl::StatusCode::kNotFound, path_, "no tensor '",
                     sv(name), "' (", list, ")");
  }
  if (info->dtype != expectedDtype)
    return invalid(path_, "tensor '", sv(name), "' has dtype ",
                   sv(dtypeName(info->dtype)), ", the model declares ",
                   sv(dtypeName(expectedDtype)));
  if (llvm::ArrayRef<int64_t>(info->shape) != expectedShape)
    return invalid(path_, "tensor '", sv(name), "' has shape ",
                   formatShape(info->shape), ", the model declares ",
                   formatShape(expectedShape));
  return info;
}

absl::StatusOr<std::vector<double>>
SafetensorsFile::readAsDouble(llvm::StringRef name) const {
  const TensorInfo *info = find(name);
  if (!info)
    return fileError(absl::StatusCode::kNotFound, path_, "no tensor '",
                     sv(name), "'");
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
        return fileError(absl::StatusCode::kOutOfRange, path_, "tensor '",
                         sv(name), "': element ", i, " (", v,
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
        return invalid(path_, "tensor '", sv(name), "': element ", i,
                       " is byte ", static_cast<int>(p[i]),
                       ", not a BOOL (0 or 1)");
      out[i] = p[i];
      break;
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

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

absl::Status
writeSafetensors(const std::string &path, llvm::ArrayRef<TensorToWrite> tensors,
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
    auto bad = [&](const auto &...args) {
      return invalid(path, "tensor '", t.name, "': ", args...);
    };
    if (t.name == "__metadata__")
      return invalid(path, "'__metadata__' is reserved and cannot name a "
                           "tensor");
    if (!json::isUTF8(t.name))
      return invalid(path, "tensor name '", t.name, "' is not valid UTF-8");
    if (i > 0 && sorted[i - 1]->name == t.name)
      return bad("written twice");
    if (llvm::any_of(t.shape, [](int64_t d) { return d < 0; }))
      return bad("shape ", formatShape(t.shape), " has a negative dimension");
    int64_t elements = 0;
    std::optional<int64_t> needed =
        byteCount(t.shape, dtypeSize(t.dtype), &elements);
    if (!needed || static_cast<uint64_t>(*needed) != t.bytes.size())
      return bad(t.bytes.size(), " bytes given, but shape ",
                 formatShape(t.shape), " x ", sv(dtypeName(t.dtype)), " needs ",
                 needed ? absl::StrCat(*needed) : "2^63 or more");
    if (t.dtype == DType::Bool)
      for (size_t j = 0; j < t.bytes.size(); ++j)
        if (t.bytes[j] > 1)
          return bad("element ", j, " is byte ", static_cast<int>(t.bytes[j]),
                     ", not a BOOL (0 or 1)");
    json::Array shape;
    for (int64_t d : t.shape)
      shape.push_back(d);
    header[t.name] =
        json::Object{{"dtype", dtypeName(t.dtype)},
                     {"shape", std::move(shape)},
                     {"data_offsets", json::Array{offset, offset + *needed}}};
    offset += *needed;
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

  std::string contents(8, '\0');
  llvm::support::endian::write64le(contents.data(), headerText.size());
  contents.reserve(8 + headerText.size() + offset);
  contents += headerText;
  for (const TensorToWrite *t : sorted)
    contents.append(t->bytes.begin(), t->bytes.end());
  return writeFileAtomically(path, contents);
}

absl::Status writeFileAtomically(const std::string &path,
                                 llvm::StringRef contents) {
  const std::string tmp =
      absl::StrCat(path, ".tmp.", llvm::sys::Process::getProcessId());
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(tmp, ec, llvm::sys::fs::OF_None);
    if (ec)
      return ioError(path, absl::StrCat("cannot create '", tmp, "': "), ec);
    os << contents;
    os.close();
    if (os.has_error()) {
      ec = os.error();
      os.clear_error();
    }
  }
  if (!ec) {
    ec = llvm::sys::fs::rename(tmp, path);
    if (!ec)
      return absl::OkStatus();
    llvm::sys::fs::remove(tmp);
    return ioError(path, absl::StrCat("cannot rename '", tmp, "': "), ec);
  }
  llvm::sys::fs::remove(tmp);
  return ioError(path, absl::StrCat("cannot write '", tmp, "': "), ec);
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

const char *detail::jsonKindName(const json::Value &value) {
  switch (value.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  return "a JSON value";
}

absl::Status detail::jsonParseError(llvm::StringRef path, llvm::StringRef what,
                                    llvm::Error error) {
  // json::ParseError prints "[line:col, byte=N]: message"; its column is the
  // 1-based column of the last character read (0 for empty input).
  std::string text = llvm::toString(std::move(error));
  llvm::StringRef rest(text);
  std::string where;
  unsigned line = 0, column = 0;
  if (rest.consume_front("[") && !rest.consumeInteger(10, line) &&
      rest.consume_front(":") && !rest.consumeInteger(10, column)) {
    where = absl::StrCat(":", line, ":", std::max(column, 1u));
    rest = rest.drop_until([](char c) { return c == ']'; });
    rest.consume_front("]");
    rest.consume_front(": ");
  } else {
    rest = text;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(sv(path), where, ": invalid ", sv(what), ": ", sv(rest)));
}

std::optional<std::string> detail::findDuplicateKey(llvm::StringRef validJson) {
  // One entry per open container: the keys seen so far for an object,
  // std::nullopt for an array.
  std::vector<std::optional<std::set<std::string>>> open;
  for (size_t i = 0, e = validJson.size(); i < e; ++i) {
    const char c = validJson[i];
    if (c == '{') {
      open.emplace_back(std::set<std::string>());
    } else if (c == '[') {
      open.emplace_back(std::nullopt);
    } else if (c == '}' || c == ']') {
      open.pop_back();
    } else if (c == '"') {
      size_t end = i + 1;
      while (validJson[end] != '"')
        end += validJson[end] == '\\' ? 2 : 1;
      llvm::StringRef quoted = validJson.slice(i, end + 1);
      i = end;
      size_t next = validJson.find_first_not_of(" \t\r\n", end + 1);
      if (open.empty() || !open.back() || next == llvm::StringRef::npos ||
          validJson[next] != ':')
        continue;
      // Decode escapes so that "a" and "\u0061" compare equal.
      llvm::Expected<json::Value> key = json::parse(quoted);
      if (!key) {
        llvm::consumeError(key.takeError());
        continue;
      }
      std::string name = key->getAsString().value_or("").str();
      if (!open.back()->insert(name).second)
        return name;
    }
  }
  return std::nullopt;
}

} // namespace mix::io
