//===-- safetensors.cpp - Safetensors files of mixrt's trainer ------------===//
//
// See safetensors.h. The JSON parser accepts objects, strings (with every
// JSON escape), arrays and non-negative integers, which is all a
// safetensors header holds; nesting is bounded.
//
//===----------------------------------------------------------------------===//

#include "safetensors.h"

#include "float_bits.h"
#include "internal.h"

#include "absl/strings/str_cat.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "mixrt's safetensors code assumes a little-endian host");

namespace mixrt::detail {

int64_t safetensorsDTypeSize(absl::string_view dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64")
    return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32")
    return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16")
    return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" ||
      dtype == "F8_E5M2")
    return 1;
  return 0;
}

namespace {

/// A JSON value of a safetensors header.
struct Json {
  enum Kind { kObject, kArray, kString, kInteger } kind = kInteger;
  std::string string;
  uint64_t integer = 0;
  std::vector<std::pair<std::string, Json>> members;
  std::vector<Json> items;
  /// Byte offset of the value in the header.
  size_t offset = 0;
};

constexpr int kMaxDepth = 8;

class Parser {
public:
  Parser(absl::string_view prefix, absl::string_view path,
         absl::string_view text, uint64_t fileOffset)
      : prefix_(prefix), path_(path), text_(text), fileOffset_(fileOffset) {}

  absl::Status parseDocument(Json &out) {
    skipSpace();
    if (absl::Status s = parseValue(out, 0); !s.ok())
      return s;
    if (out.kind != Json::kObject)
      return errorAt(out.offset, "the header is not a JSON object");
    skipSpace();
    if (pos_ != text_.size())
      return error("unexpected data after the JSON object");
    return absl::OkStatus();
  }

  absl::Status errorAt(size_t offset, absl::string_view what) const {
    return dataLoss(prefix_, ": '", path_,
                    "': malformed safetensors header at byte offset ",
                    fileOffset_ + offset, ": ", what);
  }

private:
  absl::Status error(absl::string_view what) const {
    return errorAt(pos_, what);
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  absl::Status expect(char c) {
    skipSpace();
    if (pos_ >= text_.size() || text_[pos_] != c)
      return error(absl::StrCat("expected '", std::string(1, c), "'"));
    ++pos_;
    return absl::OkStatus();
  }

  absl::Status parseValue(Json &out, int depth) {
    skipSpace();
    if (pos_ >= text_.size())
      return error("unexpected end of the header");
    out.offset = pos_;
    const char c = text_[pos_];
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth)
        return error("nested too deeply");
      return c == '{' ? parseObject(out, depth) : parseArray(out, depth);
    }
    if (c == '"') {
      out.kind = Json::kString;
      return parseString(out.string);
    }
    if (c >= '0' && c <= '9') {
      out.kind = Json::kInteger;
      return parseInteger(out.integer);
    }
    return error("expected an object, array, string or non-negative integer");
  }

  absl::Status parseObject(Json &out, int depth) {
    out.kind = Json::kObject;
    ++pos_; // '{'
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        return error("expected a string key");
      const size_t keyOffset = pos_;
      std::string key;
      if (absl::Status s = parseString(key); !s.ok())
        return s;
      for (const auto &member : out.members)
        if (member.first == key)
          return errorAt(keyOffset,
                         absl::StrCat("duplicate key \"", key, "\""));
      if (absl::Status s = expect(':'); !s.ok())
        return s;
      Json value;
      if (absl::Status s = parseValue(value, depth + 1); !s.ok())
        return s;
      out.members.emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      return expect('}');
    }
  }

  absl::Status parseArray(Json &out, int depth) {
    out.kind = Json::kArray;
    ++pos_; // '['
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      Json value;
      if (absl::Status s = parseValue(value, depth + 1); !s.ok())
        return s;
      out.items.push_back(std::move(value));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      return expect(']');
    }
  }

  absl::Status parseInteger(uint64_t &out) {
    const size_t start = pos_;
    uint64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const uint64_t digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (value > (UINT64_MAX - digit) / 10)
        return errorAt(start, "integer overflows 64 bits");
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ - start > 1 && text_[start] == '0')
      return errorAt(start, "integer with a leading zero");
    if (pos_ < text_.size() &&
        (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E'))
      return error("expected an integer");
    out = value;
    return absl::OkStatus();
  }

  absl::Status parseHex4(uint32_t &out) {
    if (text_.size() - pos_ < 4)
      return error("truncated \\u escape");
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_ + i];
      uint32_t d;
      if (c >= '0' && c <= '9')
        d = static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        d = static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        d = static_cast<uint32_t>(c - 'A' + 10);
      else
        return errorAt(pos_ + i, "bad hex digit in a \\u escape");
      value = value * 16 + d;
    }
    out = value;
    pos_ += 4;
    return absl::OkStatus();
  }

  static void appendUtf8(std::string &s, uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  absl::Status parseString(std::string &out) {
    ++pos_; // '"'
    while (true) {
      if (pos_ >= text_.size())
        return error("unterminated string");
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c < 0x20)
        return error("control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      if (++pos_ >= text_.size())
        return error("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        const size_t start = pos_ - 2;
        uint32_t cp = 0;
        if (absl::Status s = parseHex4(cp); !s.ok())
          return s;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
          return errorAt(start, "unpaired low surrogate");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t low = 0;
          if (text_.size() - pos_ < 2 || text_[pos_] != '\\' ||
              text_[pos_ + 1] != 'u')
            return errorAt(start, "unpaired high surrogate");
          pos_ += 2;
          if (absl::Status s = parseHex4(low); !s.ok())
            return s;
          if (low < 0xDC00 || low > 0xDFFF)
            return errorAt(start, "unpaired high surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return errorAt(pos_ - 2, "invalid escape");
      }
    }
  }

  absl::string_view prefix_;
  absl::string_view path_;
  absl::string_view text_;
  uint64_t fileOffset_;
  size_t pos_ = 0;
};

std::string shapeString(absl::Span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    absl::StrAppend(&s, i ? ", " : "", shape[i]);
  return s + "]";
}

} // namespace

absl::Status parseSafetensorsHeader(absl::string_view prefix,
                                    absl::string_view path,
                                    absl::string_view header,
                                    uint64_t fileOffset, uint64_t dataSize,
                                    std::vector<SafetensorsEntry> &out) {
  Parser parser(prefix, path, header, fileOffset);
  Json root;
  if (absl::Status s = parser.parseDocument(root); !s.ok())
    return s;
  for (const auto &[name, value] : root.members) {
    if (name == "__metadata__") {
      if (value.kind != Json::kObject)
        return parser.errorAt(value.offset, "__metadata__ is not an object");
      for (const auto &member : value.members)
        if (member.second.kind != Json::kString)
          return parser.errorAt(member.second.offset,
                                "a __metadata__ value is not a string");
      continue;
    }
    if (value.kind != Json::kObject)
      return parser.errorAt(
          value.offset, absl::StrCat("tensor \"", name, "\" is not an object"));
    const Json *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
    for (const auto &member : value.members) {
      if (member.first == "dtype")
        dtype = &member.second;
      else if (member.first == "shape")
        shape = &member.second;
      else if (member.first == "data_offsets")
        offsets = &member.second;
      else
        return parser.errorAt(member.second.offset,
                              absl::StrCat("tensor \"", name,
                                           "\" has an unknown field \"",
                                           member.first, "\""));
    }
    if (!dtype || !shape || !offsets)
      return parser.errorAt(value.offset,
                            absl::StrCat("tensor \"", name,
                                         "\" lacks dtype, shape or "
                                         "data_offsets"));
    if (dtype->kind != Json::kString)
      return parser.errorAt(dtype->offset, absl::StrCat("the dtype of \"", name,
                                                        "\" is not a string"));
    SafetensorsEntry entry;
    entry.name = name;
    entry.dtype = dtype->string;
    if (shape->kind != Json::kArray)
      return parser.errorAt(shape->offset, absl::StrCat("the shape of \"", name,
                                                        "\" is not an array"));
    uint64_t elements = 1;
    bool overflow = false;
    for (const Json &dim : shape->items) {
      if (dim.kind != Json::kInteger || dim.integer > INT64_MAX)
        return parser.errorAt(dim.offset,
                              absl::StrCat("the shape of \"", name,
                                           "\" holds a non-integer or a "
                                           "too large dimension"));
      entry.shape.push_back(static_cast<int64_t>(dim.integer));
      overflow |= __builtin_mul_overflow(elements, dim.integer, &elements);
    }
    if (offsets->kind != Json::kArray || offsets->items.size() != 2 ||
        offsets->items[0].kind != Json::kInteger ||
        offsets->items[1].kind != Json::kInteger)
      return parser.errorAt(offsets->offset,
                            absl::StrCat("the data_offsets of \"", name,
                                         "\" are not two integers"));
    entry.begin = offsets->items[0].integer;
    entry.end = offsets->items[1].integer;
    if (entry.begin > entry.end || entry.end > dataSize)
      return parser.errorAt(offsets->offset,
                            absl::StrCat("the data_offsets [", entry.begin,
                                         ", ", entry.end, "] of \"", name,
                                         "\" are outside the data area (",
                                         dataSize, " bytes)"));
    const int64_t size = safetensorsDTypeSize(entry.dtype);
    uint64_t bytes = 0;
    if (size > 0 && (overflow ||
                     __builtin_mul_overflow(
                         elements, static_cast<uint64_t>(size), &bytes) ||
                     bytes != entry.end - entry.begin))
      return parser.errorAt(
          offsets->offset,
          absl::StrCat("\"", name, "\" (", entry.dtype, ", shape ",
                       shapeString(entry.shape), ") needs ",
                       overflow ? std::string("too many") : absl::StrCat(bytes),
                       " bytes, its data_offsets span ",
                       entry.end - entry.begin));
    out.push_back(std::move(entry));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<SafetensorsReader>>
SafetensorsReader::Open(absl::string_view prefix, const std::string &path) {
  std::unique_ptr<SafetensorsReader> reader(new SafetensorsReader());
  reader->path_ = path;
  reader->file_ = std::fopen(path.c_str(), "rb");
  if (!reader->file_)
    return notFound(prefix, ": cannot open '", path,
                    "': ", std::strerror(errno));
  std::FILE *f = reader->file_;
  if (std::fseek(f, 0, SEEK_END) != 0)
    return dataLoss(prefix, ": '", path,
                    "': cannot seek: ", std::strerror(errno));
  const long fileSizeLong = std::ftell(f);
  if (fileSizeLong < 0 || std::fseek(f, 0, SEEK_SET) != 0)
    return dataLoss(prefix, ": '", path,
                    "': cannot seek: ", std::strerror(errno));
  const uint64_t fileSize = static_cast<uint64_t>(fileSizeLong);
  if (fileSize < 8)
    return dataLoss(prefix, ": '", path, "': truncated: ", fileSize,
                    " bytes, less than the 8-byte header length at byte "
                    "offset 0");
  unsigned char lengthBytes[8];
  if (std::fread(lengthBytes, 1, 8, f) != 8)
    return dataLoss(prefix, ": '", path, "': cannot read the header length");
  uint64_t headerLength = 0;
  for (int i = 7; i >= 0; --i)
    headerLength = (headerLength << 8) | lengthBytes[i];
  if (headerLength > fileSize - 8)
    return dataLoss(prefix, ": '", path, "': truncated: the header length (",
                    headerLength, ") at byte offset 0 exceeds the ",
                    fileSize - 8, " bytes after it");
  std::string header(headerLength, '\0');
  if (headerLength > 0 &&
      std::fread(header.data(), 1, headerLength, f) != headerLength)
    return dataLoss(prefix, ": '", path, "': cannot read the header");
  reader->dataStart_ = 8 + headerLength;
  if (absl::Status s = parseSafetensorsHeader(prefix, path, header, 8,
                                              fileSize - reader->dataStart_,
                                              reader->entries_);
      !s.ok())
    return s;
  return reader;
}

SafetensorsReader::~SafetensorsReader() {
  if (file_)
    std::fclose(file_);
}

const SafetensorsEntry *SafetensorsReader::Find(absl::string_view name) const {
  for (const SafetensorsEntry &entry : entries_)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

absl::Status SafetensorsReader::ReadF64(absl::string_view prefix,
                                        const SafetensorsEntry &entry,
                                        std::vector<double> &out) const {
  const int64_t size = safetensorsDTypeSize(entry.dtype);
  const bool known = entry.dtype == "F64" || entry.dtype == "F32" ||
                     entry.dtype == "F16" || entry.dtype == "BF16";
  if (!known)
    return invalidArgument(prefix, ": '", entry.name, "' in '", path_,
                           "' has dtype ", entry.dtype,
                           "; expected F64, F32, F16 or BF16");
  const uint64_t bytes = entry.end - entry.begin;
  const uint64_t count = bytes / static_cast<uint64_t>(size);
  std::vector<unsigned char> raw(bytes);
  if (std::fseek(file_, static_cast<long>(dataStart_ + entry.begin),
                 SEEK_SET) != 0 ||
      (bytes > 0 && std::fread(raw.data(), 1, bytes, file_) != bytes))
    return dataLoss(prefix, ": '", path_, "': cannot read the data of '",
                    entry.name, "' at byte offset ", dataStart_ + entry.begin);
  out.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    const unsigned char *p = raw.data() + i * static_cast<uint64_t>(size);
    if (entry.dtype == "F64") {
      std::memcpy(&out[i], p, 8);
    } else if (entry.dtype == "F32") {
      float f;
      std::memcpy(&f, p, 4);
      out[i] = static_cast<double>(f);
    } else {
      const uint16_t h = static_cast<uint16_t>(p[0] | (p[1] << 8));
      out[i] = entry.dtype == "F16" ? widen<F16Format, double>(h)
                                    : widen<BF16Format, double>(h);
    }
  }
  return absl::OkStatus();
}

namespace {

void appendJsonString(std::string &out, absl::string_view s) {
  out += '"';
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
}

} // namespace

std::string safetensorsHeader(absl::Span<const SafetensorsTensor> tensors) {
  std::string json = "{";
  int64_t offset = 0;
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (t)
      json += ',';
    appendJsonString(json, tensors[t].name);
    absl::StrAppend(&json, ":{\"dtype\":\"", tensors[t].dtype,
                    "\",\"shape\":[");
    for (size_t i = 0; i < tensors[t].shape.size(); ++i)
      absl::StrAppend(&json, i ? "," : "", tensors[t].shape[i]);
    absl::StrAppend(&json, "],\"data_offsets\":[", offset, ",",
                    offset + tensors[t].bytes, "]}");
    offset += tensors[t].bytes;
  }
  json += '}';
  // Padded with spaces so that the data starts at a multiple of 8.
  while (json.size() % 8 != 0)
    json += ' ';
  std::string out(8, '\0');
  uint64_t length = json.size();
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  return out + json;
}

absl::Status writeSafetensors(absl::string_view op, const std::string &path,
                              absl::Span<const SafetensorsTensor> tensors) {
  const std::string tmp =
      absl::StrCat(path, ".tmp.", static_cast<int64_t>(getpid()));
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    return unavailable(op, ": cannot write '", path,
                       "': ", std::strerror(errno));
  const std::string header = safetensorsHeader(tensors);
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  for (const SafetensorsTensor &t : tensors)
    ok = ok &&
         (t.bytes == 0 || std::fwrite(t.data, 1, static_cast<size_t>(t.bytes),
                                      f) == static_cast<size_t>(t.bytes));
  int err = ok ? 0 : errno;
  if (std::fflush(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return unavailable(op, ": cannot write '", path,
                       "': ", std::strerror(err ? err : EIO));
  }
  return absl::OkStatus();
}

} // namespace mixrt::detail
