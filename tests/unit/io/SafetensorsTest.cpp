//===- SafetensorsTest.cpp - tests of the safetensors reader/writer ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Malformed files are written byte by byte here, never with the writer. This
// file also provides the Catch2 main of mix_io_tests.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_MAIN
#include "Result.h"
#include "TempDir.h"

#include <catch2/catch.hpp>

#include "io/Safetensors.h"
#include "support/Format.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

using namespace mix::io;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

using test::Outcome;
using test::Result;
using test::result;
using test::TempDir;

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The 8-byte little-endian encoding of `n`.
std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i)
    s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

/// A safetensors file: length prefix, `header` verbatim, `data`.
std::string stFile(const std::string &header, const std::string &data = "") {
  return le64(header.size()) + header + data;
}

/// Opens `bytes` written to a fresh file and returns the error message; the
/// open must fail with InvalidArgument and the message must start with the
/// path.
std::string openError(const TempDir &dir, const std::string &bytes) {
  const std::string path = dir.file("bad.safetensors");
  writeBytes(path, bytes);
  Result<SafetensorsFile> file = SafetensorsFile::open(path);
  REQUIRE_FALSE(file.ok());
  CHECK(file.status().code() == std::errc::invalid_argument);
  std::string msg(file.status().message());
  CHECK_THAT(msg, StartsWith(path + ":"));
  CHECK(msg.find('\n') == std::string::npos);
  return msg;
}

/// Bytes of 16-bit values, little-endian.
std::vector<uint8_t> le16s(std::initializer_list<uint16_t> values) {
  std::vector<uint8_t> bytes;
  for (uint16_t v : values) {
    bytes.push_back(v & 0xff);
    bytes.push_back(v >> 8);
  }
  return bytes;
}

/// Writes `tensors` and opens the result.
SafetensorsFile roundTrip(const TempDir &dir,
                          const std::vector<TensorToWrite> &tensors,
                          const std::map<std::string, std::string> &meta = {}) {
  const std::string path = dir.file("rt.safetensors");
  Outcome written = writeSafetensors(path, tensors, meta);
  INFO(written.message());
  REQUIRE(written.ok());
  Result<SafetensorsFile> file = SafetensorsFile::open(path);
  INFO(file.status().message());
  REQUIRE(file.ok());
  return std::move(*file);
}

std::vector<double> readDoubles(const SafetensorsFile &file,
                                const std::string &name) {
  Result<std::vector<double>> values = file.readAsDouble(name);
  INFO(values.status().message());
  REQUIRE(values.ok());
  return *values;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

} // namespace

TEST_CASE("dtype names, sizes and parsing", "[safetensors]") {
  const std::pair<DType, int64_t> all[] = {
      {DType::F64, 8}, {DType::F32, 4}, {DType::F16, 2}, {DType::BF16, 2},
      {DType::I64, 8}, {DType::I32, 4}, {DType::I16, 2}, {DType::I8, 1},
      {DType::U8, 1},  {DType::Bool, 1}};
  for (auto [dtype, size] : all) {
    CHECK(dtypeSize(dtype) == size);
    CHECK(parseDType(dtypeName(dtype)) == dtype);
  }
  CHECK(dtypeName(DType::Bool) == "BOOL");
  CHECK(dtypeName(DType::BF16) == "BF16");
  CHECK_FALSE(parseDType("F8_E4M3").has_value());
  CHECK_FALSE(parseDType("f32").has_value());
  CHECK(mix::formatShape({}) == "[]");
  CHECK(mix::formatShape({5, 6}) == "[5, 6]");
}

TEST_CASE("every dtype round-trips through the writer", "[safetensors]") {
  TempDir dir("st");
  std::vector<TensorToWrite> tensors;
  // Distinct byte patterns per tensor, shape [2, 3] (BOOL bytes must be 0/1).
  const DType dtypes[] = {DType::F64, DType::F32, DType::F16, DType::BF16,
                          DType::I64, DType::I32, DType::I16, DType::I8,
                          DType::U8,  DType::Bool};
  for (DType dtype : dtypes) {
    TensorToWrite t;
    t.name = "t." + dtypeName(dtype).str();
    t.dtype = dtype;
    t.shape = {2, 3};
    for (int64_t i = 0; i < 6 * dtypeSize(dtype); ++i)
      t.bytes.push_back(dtype == DType::Bool ? i % 2 : (i * 7 + 3) & 0xff);
    tensors.push_back(std::move(t));
  }
  const std::map<std::string, std::string> meta = {{"format", "pt"},
                                                   {"origin", "test \"x\""}};
  SafetensorsFile file = roundTrip(dir, tensors, meta);

  CHECK(file.metadata() == meta);
  CHECK(file.path() == dir.file("rt.safetensors"));
  std::vector<std::string> expectedNames;
  for (const TensorToWrite &t : tensors)
    expectedNames.push_back(t.name);
  std::sort(expectedNames.begin(), expectedNames.end());
  CHECK(file.names() == expectedNames);
  for (const TensorToWrite &t : tensors) {
    INFO(t.name);
    const TensorInfo *info = file.find(t.name);
    REQUIRE(info != nullptr);
    CHECK(info->name == t.name);
    CHECK(info->dtype == t.dtype);
    CHECK(info->shape == t.shape);
    CHECK(info->numElements == 6);
    CHECK(info->byteSize == static_cast<int64_t>(t.bytes.size()));
    CHECK(std::memcmp(info->data, t.bytes.data(), t.bytes.size()) == 0);
  }
  CHECK(file.find("absent") == nullptr);

  // The file stays usable after a move.
  SafetensorsFile moved = std::move(file);
  CHECK(moved.find("t.U8")->data[1] == 10);
}

TEST_CASE("writer layout: padded header, sorted contiguous tensors",
          "[safetensors]") {
  TempDir dir("st");
  const std::string path = dir.file("layout.safetensors");
  std::vector<TensorToWrite> tensors = {
      makeTensor("b", {3}, std::vector<int8_t>{1, 2, 3}),
      makeTensor("a", {2}, std::vector<float>{1.5f, -2.0f}),
      makeTensor("c", {1}, std::vector<double>{0.25})};
  REQUIRE(Outcome(writeSafetensors(path, tensors)).ok());
  CHECK(dir.list() == std::vector<std::string>{"layout.safetensors"});

  const std::string bytes = readBytes(path);
  REQUIRE(bytes.size() >= 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<uint8_t>(bytes[i]);
  CHECK(n % 8 == 0);
  REQUIRE(bytes.size() == 8 + n + 8 + 3 + 8);
  const std::string header = bytes.substr(8, n);
  CHECK(header.front() == '{');
  CHECK(header.find_last_not_of(' ') == header.rfind('}'));
  // a (8 bytes) at 0, b (3 bytes) at 8, c (8 bytes) at 11.
  CHECK_THAT(header, Contains("\"data_offsets\":[0,8]"));
  CHECK_THAT(header, Contains("\"data_offsets\":[8,11]"));
  CHECK_THAT(header, Contains("\"data_offsets\":[11,19]"));
  const std::string data = bytes.substr(8 + n);
  float a0;
  std::memcpy(&a0, data.data(), 4);
  CHECK(a0 == 1.5f);
  CHECK(data.substr(8, 3) == std::string("\x01\x02\x03", 3));
}

TEST_CASE("makeTensor builders convert back exactly", "[safetensors]") {
  TempDir dir("st");
  SafetensorsFile file = roundTrip(
      dir, {makeTensor("f64", {2}, std::vector<double>{0.1, -1e300}),
            makeTensor("f32", {2}, std::vector<float>{0.1f, -3.5f}),
            makeTensor("i32", {3},
                       std::vector<int32_t>{-2147483647 - 1, 0, 2147483647}),
            makeTensor("i8", {2}, std::vector<int8_t>{-128, 127})});
  CHECK(readDoubles(file, "f64") == std::vector<double>{0.1, -1e300});
  CHECK(readDoubles(file, "f32") ==
        std::vector<double>{static_cast<double>(0.1f), -3.5});
  CHECK(readDoubles(file, "i32") ==
        std::vector<double>{-2147483648.0, 0.0, 2147483647.0});
  CHECK(readDoubles(file, "i8") == std::vector<double>{-128.0, 127.0});
  CHECK(file.find("i32")->dtype == DType::I32);
}

TEST_CASE("F16 and BF16 decode exactly", "[safetensors]") {
  TempDir dir("st");
  TensorToWrite f16{"h",
                    DType::F16,
                    {9},
                    le16s({0x3c00, 0x0001, 0x7c00, 0xc000, 0xfc00, 0x7e00,
                           0x8000, 0x03ff, 0x7bff})};
  TensorToWrite bf16{
      "b",
      DType::BF16,
      {8},
      le16s({0x3f80, 0x0001, 0xc000, 0x7f80, 0xff80, 0x7fc0, 0x4049, 0x8000})};
  SafetensorsFile file = roundTrip(dir, {f16, bf16});

  // Expected values from the bit layouts, computed without the decoder.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> h = readDoubles(file, "h");
  REQUIRE(h.size() == 9);
  CHECK(h[0] == 1.0);
  CHECK(h[1] == 1.0 / 16777216.0); // 2^-24, smallest subnormal
  CHECK(h[2] == inf);
  CHECK(h[3] == -2.0);
  CHECK(h[4] == -inf);
  CHECK(std::isnan(h[5]));
  CHECK(sameBits(h[6], -0.0));
  CHECK(h[7] == 1023.0 / 16777216.0); // largest subnormal
  CHECK(h[8] == 65504.0);             // largest finite

  std::vector<double> b = readDoubles(file, "b");
  REQUIRE(b.size() == 8);
  CHECK(b[0] == 1.0);
  // 0x0001: subnormal, mantissa 1 x 2^(-126-7) = 2^-133.
  double twoPowMinus133 = 1.0;
  for (int i = 0; i < 133; ++i)
    twoPowMinus133 /= 2.0;
  CHECK(b[1] == twoPowMinus133);
  CHECK(b[2] == -2.0);
  CHECK(b[3] == inf);
  CHECK(b[4] == -inf);
  CHECK(std::isnan(b[5]));
  CHECK(b[6] == 3.140625); // exponent 128, mantissa 0x49: (1 + 73/128) * 2
  CHECK(sameBits(b[7], -0.0));
}

TEST_CASE("integer and BOOL tensors read as double", "[safetensors]") {
  TempDir dir("st");
  auto le64Bytes = [](std::initializer_list<int64_t> values) {
    std::vector<uint8_t> bytes;
    for (int64_t v : values)
      for (int i = 0; i < 8; ++i)
        bytes.push_back((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
    return bytes;
  };
  const int64_t twoPow53 = int64_t(1) << 53;
  SafetensorsFile file = roundTrip(
      dir, {{"i64", DType::I64, {3}, le64Bytes({-5, twoPow53, -twoPow53})},
            {"big", DType::I64, {2}, le64Bytes({0, twoPow53 + 1})},
            {"max",
             DType::I64,
             {1},
             le64Bytes({std::numeric_limits<int64_t>::max()})},
            {"i16", DType::I16, {2}, le16s({0x8000, 0x7fff})},
            {"u8", DType::U8, {2}, {0, 255}},
            {"bool", DType::Bool, {3}, {1, 0, 1}}});
  CHECK(readDoubles(file, "i64") ==
        std::vector<double>{-5.0, 9007199254740992.0, -9007199254740992.0});
  CHECK(readDoubles(file, "i16") == std::vector<double>{-32768.0, 32767.0});
  CHECK(readDoubles(file, "u8") == std::vector<double>{0.0, 255.0});
  CHECK(readDoubles(file, "bool") == std::vector<double>{1.0, 0.0, 1.0});

  Result<std::vector<double>> big = file.readAsDouble("big");
  REQUIRE_FALSE(big.ok());
  CHECK(big.status().code() == std::errc::result_out_of_range);
  CHECK(big.status().message() ==
        file.path() + ": tensor 'big': element 1 (9007199254740993) has no "
                      "exact double value");
  CHECK_FALSE(result(file.readAsDouble("max")).ok());

  Result<std::vector<double>> missing = file.readAsDouble("nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == std::errc::no_such_file_or_directory);
}

TEST_CASE("BOOL bytes other than 0/1 are rejected", "[safetensors]") {
  TempDir dir("st");
  const std::string path = dir.file("bool.safetensors");
  writeBytes(path, stFile(R"({"m":{"dtype":"BOOL","shape":[2],)"
                          R"("data_offsets":[0,2]}})",
                          std::string("\x01\x02", 2)));
  Result<SafetensorsFile> file = SafetensorsFile::open(path);
  REQUIRE(file.ok());
  Result<std::vector<double>> values = file->readAsDouble("m");
  REQUIRE_FALSE(values.ok());
  CHECK(values.status().message() ==
        path + ": tensor 'm': element 1 is byte 2, not a BOOL (0 or 1)");

  Outcome written = writeSafetensors(dir.file("w.safetensors"),
                                     {{"m", DType::Bool, {1}, {3}}});
  CHECK_THAT(std::string(written.message()),
             Contains("tensor 'm': element 0 is byte 3, not a BOOL (0 or 1)"));
}

TEST_CASE("0-d and zero-size tensors", "[safetensors]") {
  TempDir dir("st");
  SafetensorsFile file =
      roundTrip(dir, {makeTensor("scalar", {}, std::vector<float>{3.5f}),
                      makeTensor("empty", {2, 0, 3}, std::vector<float>{}),
                      makeTensor("after", {1}, std::vector<float>{-1.0f})});
  const TensorInfo *scalar = file.find("scalar");
  REQUIRE(scalar != nullptr);
  CHECK(scalar->shape.empty());
  CHECK(scalar->numElements == 1);
  CHECK(scalar->byteSize == 4);
  CHECK(readDoubles(file, "scalar") == std::vector<double>{3.5});
  const TensorInfo *empty = file.find("empty");
  REQUIRE(empty != nullptr);
  CHECK(empty->shape == std::vector<int64_t>{2, 0, 3});
  CHECK(empty->numElements == 0);
  CHECK(empty->byteSize == 0);
  CHECK(readDoubles(file, "empty").empty());
  CHECK(readDoubles(file, "after") == std::vector<double>{-1.0});
  CHECK(result(file.get("scalar", DType::F32, {})).ok());

  // A zero-size tensor inside another's range holds no bytes: no overlap.
  // Huge dimensions next to a zero one are fine too (the product is 0).
  const std::string path = dir.file("zero.safetensors");
  writeBytes(path,
             stFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                    R"("z":{"dtype":"F64","shape":[0,9223372036854775807],)"
                    R"("data_offsets":[4,4]}})",
                    std::string(8, '\0')));
  Result<SafetensorsFile> zero = SafetensorsFile::open(path);
  INFO(zero.status().message());
  REQUIRE(zero.ok());
  CHECK(zero->find("z")->numElements == 0);

  // A file with no tensors at all.
  writeBytes(path, stFile("{}"));
  Result<SafetensorsFile> none = SafetensorsFile::open(path);
  REQUIRE(none.ok());
  CHECK(none->names().empty());
  Result<const TensorInfo *> got = none->get("w", DType::F32, {1});
  CHECK(got.status().message() ==
        path + ": no tensor 'w' (the file has no tensors)");
}

TEST_CASE("get checks presence, dtype and shape", "[safetensors]") {
  TempDir dir("st");
  std::vector<TensorToWrite> tensors;
  for (char c = 'a'; c <= 'j'; ++c)
    tensors.push_back(makeTensor(std::string(1, c) + ".w", {2, 3},
                                 std::vector<float>(6, 1.0f)));
  SafetensorsFile file = roundTrip(dir, tensors);
  const std::string &path = file.path();

  Result<const TensorInfo *> ok = file.get("c.w", DType::F32, {2, 3});
  REQUIRE(ok.ok());
  CHECK((*ok)->name == "c.w");

  Result<const TensorInfo *> missing =
      file.get("fc1.weight", DType::F32, {2, 3});
  CHECK(missing.status().code() == std::errc::no_such_file_or_directory);
  CHECK(missing.status().message() ==
        path + ": no tensor 'fc1.weight' (the file has: a.w, b.w, c.w, d.w, "
               "e.w, f.w, g.w, h.w, ... (2 more))");

  Result<const TensorInfo *> dtype = file.get("a.w", DType::F16, {2, 3});
  CHECK(dtype.status().code() == std::errc::invalid_argument);
  CHECK(dtype.status().message() ==
        path + ": tensor 'a.w' has dtype F32, the model declares F16");

  Result<const TensorInfo *> shape = file.get("a.w", DType::F32, {3, 2});
  CHECK(shape.status().code() == std::errc::invalid_argument);
  CHECK(shape.status().message() ==
        path + ": tensor 'a.w' has shape [2, 3], the model declares [3, 2]");

  TempDir small("st");
  SafetensorsFile two =
      roundTrip(small, {makeTensor("x", {1}, std::vector<float>{0}),
                        makeTensor("y", {1}, std::vector<float>{0})});
  CHECK(result(two.get("z", DType::F32, {1})).status().message() ==
        two.path() + ": no tensor 'z' (the file has: x, y)");
}

TEST_CASE("open reports missing, empty and truncated files", "[safetensors]") {
  TempDir dir("st");
  const std::string missingPath = dir.file("missing.safetensors");
  Result<SafetensorsFile> missing = SafetensorsFile::open(missingPath);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == std::errc::no_such_file_or_directory);
  CHECK_THAT(std::string(missing.status().message()),
             StartsWith(missingPath + ": cannot read: "));

  CHECK(openError(dir, "") ==
        dir.file("bad.safetensors") +
            ": the file is empty (a safetensors file starts with an 8-byte "
            "header length)");
  CHECK_THAT(openError(dir, std::string("\x02\0\0\0\0", 5)),
             Contains(": truncated: 5 bytes, but a safetensors file starts "
                      "with an 8-byte header length"));
  CHECK(openError(dir, le64(120) + std::string(40, ' ')) ==
        dir.file("bad.safetensors") +
            ": truncated: header declares 120 bytes but only 40 follow the "
            "length prefix");
  CHECK_THAT(openError(dir, le64(~uint64_t(0)) + "{}"),
             Contains("truncated: header declares 18446744073709551615 bytes "
                      "but only 2 follow"));
}

TEST_CASE("open reports malformed JSON headers", "[safetensors]") {
  TempDir dir("st");
  const std::string path = dir.file("bad.safetensors");
  CHECK_THAT(openError(dir, stFile(R"({"a": )")),
             StartsWith(path + ":1:6: invalid JSON header: "));
  CHECK_THAT(openError(dir, stFile("{\n  \"a\": [1,\n  }")),
             StartsWith(path + ":3:3: invalid JSON header: "));
  CHECK_THAT(openError(dir, stFile("{\"a\xff\": 1}")),
             Contains("invalid JSON header"));
  // llvm::json keeps one of two equal keys; the reader refuses both.
  const std::string entry =
      R"({"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
  CHECK(openError(dir,
                  stFile("{\"a\": " + entry + ", \"\\u0061\": " + entry + "}",
                         "x")) == path + ": the header has the key 'a' twice");
  CHECK(openError(dir, stFile(R"({"a": {"dtype":"U8","dtype":"U8",)"
                              R"("shape":[1],"data_offsets":[0,1]}})",
                              "x")) ==
        path + ": the header has the key 'dtype' twice");
  CHECK(openError(dir, stFile("[1, 2]")) ==
        path + ": the header must be a JSON object, got an array");
}

TEST_CASE("open reports malformed tensor entries", "[safetensors]") {
  TempDir dir("st");
  auto entry = [](const std::string &body) {
    return stFile("{\"w\": " + body + "}", std::string(64, '\0'));
  };
  const std::string okDtype = R"("dtype":"F32")";
  const std::string okShape = R"("shape":[2])";
  const std::string okOffsets = R"("data_offsets":[0,8])";

  CHECK_THAT(openError(dir, entry("5")),
             Contains(": tensor 'w': entry must be an object, got a number"));
  CHECK_THAT(openError(dir, entry("{" + okShape + "," + okOffsets + "}")),
             Contains(": tensor 'w': missing \"dtype\""));
  CHECK_THAT(openError(dir, entry("{" + okDtype + "," + okOffsets + "}")),
             Contains(": tensor 'w': missing \"shape\""));
  CHECK_THAT(openError(dir, entry("{" + okDtype + "," + okShape + "}")),
             Contains(": tensor 'w': missing \"data_offsets\""));
  CHECK_THAT(
      openError(dir, entry(R"({"dtype":4,)" + okShape + "," + okOffsets + "}")),
      Contains(": tensor 'w': \"dtype\" must be a string, got a number"));
  CHECK_THAT(openError(dir, entry(R"({"dtype":"F8_E4M3",)" + okShape + "," +
                                  okOffsets + "}")),
             Contains(": tensor 'w': unsupported dtype 'F8_E4M3' (mixc reads "
                      "F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL)"));
  for (const char *shape : {R"("shape":"2")", R"("shape":[-2])",
                            R"("shape":[1.5])", R"("shape":["2"])"})
    CHECK_THAT(openError(dir, entry("{" + okDtype + "," + shape + "," +
                                    okOffsets + "}")),
               Contains(": tensor 'w': \"shape\" must be an array of "
                        "non-negative integers"));
  for (const char *offsets :
       {R"("data_offsets":[0])", R"("data_offsets":[0,8,9])",
        R"("data_offsets":[-8,0])", R"("data_offsets":{"a":1})"})
    CHECK_THAT(openError(dir, entry("{" + okDtype + "," + okShape + "," +
                                    offsets + "}")),
               Contains(": tensor 'w': \"data_offsets\" must be two "
                        "non-negative integers [begin, end]"));
  CHECK_THAT(openError(dir, entry("{" + okDtype + "," + okShape +
                                  R"(,"data_offsets":[8,0]})")),
             Contains(": tensor 'w': data_offsets [8, 0] end before they "
                      "begin"));
}

TEST_CASE("control characters of names are escaped in messages",
          "[safetensors]") {
  TempDir dir("st");
  const std::string path = dir.file("bad.safetensors");
  // A key with a NUL (JSON \u0000), a newline and an ESC: the message stays
  // one printable line.
  CHECK(openError(dir, stFile(R"({"a\u0000b\n\u001b[31m":{"dtype":"X",)"
                              R"("shape":[1],"data_offsets":[0,1]}})",
                              "x")) ==
        path + R"(: tensor 'a\x00b\x0a\x1b[31m': unsupported dtype 'X' (mixc )"
               R"(reads F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL))");
}

TEST_CASE("open reports sizes, bounds and overlaps", "[safetensors]") {
  TempDir dir("st");
  const std::string path = dir.file("bad.safetensors");
  CHECK(openError(dir, stFile(R"({"fc1.weight":{"dtype":"F32",)"
                              R"("shape":[5,6],"data_offsets":[0,100]}})",
                              std::string(100, '\0'))) ==
        path + ": tensor 'fc1.weight': data_offsets [0, 100] hold 100 bytes, "
               "but shape [5, 6] x F32 needs 120");
  CHECK(openError(dir, stFile(R"({"big":{"dtype":"F32","shape":[4294967296,)"
                              R"(4294967296,4],"data_offsets":[0,0]}})")) ==
        path + ": tensor 'big': shape [4294967296, 4294967296, 4] x F32 "
               "needs 2^63 bytes or more");
  CHECK(openError(dir, stFile(R"({"w":{"dtype":"F64","shape":[2],)"
                              R"("data_offsets":[8,24]}})",
                              std::string(20, '\0'))) ==
        path + ": tensor 'w': data_offsets [8, 24] end beyond the 20-byte "
               "data buffer");
  CHECK(openError(dir, stFile(R"({"a":{"dtype":"F32","shape":[2],)"
                              R"("data_offsets":[0,8]},)"
                              R"("b":{"dtype":"I32","shape":[2],)"
                              R"("data_offsets":[4,12]}})",
                              std::string(12, '\0'))) ==
        path + ": tensors 'a' [0, 8] and 'b' [4, 12] overlap");
  // An overlap with an earlier, longer range is found too.
  CHECK_THAT(openError(dir, stFile(R"({"a":{"dtype":"U8","shape":[10],)"
                                   R"("data_offsets":[0,10]},)"
                                   R"("b":{"dtype":"U8","shape":[2],)"
                                   R"("data_offsets":[2,4]},)"
                                   R"("c":{"dtype":"U8","shape":[2],)"
                                   R"("data_offsets":[5,7]}})",
                                   std::string(10, '\0'))),
             Contains("tensors 'a' [0, 10] and 'b' [2, 4] overlap"));
}

TEST_CASE("open reports malformed metadata", "[safetensors]") {
  TempDir dir("st");
  CHECK_THAT(openError(dir, stFile(R"({"__metadata__":[1]})")),
             Contains(": \"__metadata__\" must be an object, got an array"));
  CHECK_THAT(openError(dir, stFile(R"({"__metadata__":{"k":1}})")),
             Contains(": \"__metadata__\" values must be strings; 'k' is a "
                      "number"));
}

TEST_CASE("writer rejects bad tensors and leaves nothing behind",
          "[safetensors]") {
  TempDir dir("st");
  const std::string path = dir.file("w.safetensors");
  auto message = [&](const std::vector<TensorToWrite> &tensors) {
    Outcome s = writeSafetensors(path, tensors);
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == std::errc::invalid_argument);
    return std::string(s.message());
  };
  CHECK(message({makeTensor("w", {2, 2}, std::vector<float>{1, 2, 3})}) ==
        path + ": tensor 'w': 12 bytes given, but shape [2, 2] x F32 needs 16");
  CHECK(message({makeTensor("w", {1}, std::vector<float>{1}),
                 makeTensor("w", {1}, std::vector<float>{2})}) ==
        path + ": tensor 'w': written twice");
  CHECK(message({makeTensor("__metadata__", {1}, std::vector<float>{1})}) ==
        path + ": '__metadata__' is reserved and cannot name a tensor");
  CHECK(message({makeTensor("w", {-1}, std::vector<float>{})}) ==
        path + ": tensor 'w': shape [-1] has a negative dimension");
  CHECK(dir.list().empty());

  // An unwritable destination: the temporary file cannot even be created.
  const std::string noDir = dir.file("no/such/dir/w.safetensors");
  Outcome s =
      writeSafetensors(noDir, {makeTensor("w", {1}, std::vector<float>{1})});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(std::string(s.message()), StartsWith(noDir + ": cannot create"));

  // Renaming onto a directory fails after the write: the temp file is gone.
  fs::create_directory(dir.file("isdir"));
  fs::create_directory(dir.file("isdir/sub"));
  s = writeSafetensors(dir.file("isdir"),
                       {makeTensor("w", {1}, std::vector<float>{1})});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(std::string(s.message()),
             StartsWith(dir.file("isdir") + ": cannot write '" +
                        dir.file("isdir") + "': it is a directory"));
  CHECK(dir.list() == std::vector<std::string>{"isdir"});
}

TEST_CASE("borrowed tensors are laid out like owned ones", "[safetensors]") {
  // The same two tensors, owned and borrowed: the pieces are the header
  // followed by the tensors in name order, pointing into the borrowed
  // memory, and concatenated they are the bytes serializeSafetensors gives.
  const std::vector<float> a = {1.5f, -2.0f, 3.25f}, b = {7.0f};
  std::vector<TensorToWrite> owned = {makeTensor("z", {3}, a),
                                      makeTensor("a", {1}, b)};
  std::vector<TensorToWrite> borrowed = owned;
  for (TensorToWrite &t : borrowed)
    t.bytes.clear();
  borrowed[0].borrowed = llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(a.data()), a.size() * 4);
  borrowed[1].borrowed = llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(b.data()), b.size() * 4);
  Result<std::string> whole = serializeSafetensors("w", owned);
  REQUIRE(whole.ok());
  Result<SafetensorsPieces> pieces = layOutSafetensors("w", borrowed);
  REQUIRE(pieces.ok());
  REQUIRE(pieces->data.size() == 2);
  CHECK(pieces->data[0].data() == reinterpret_cast<const char *>(b.data()));
  CHECK(pieces->data[1].data() == reinterpret_cast<const char *>(a.data()));
  std::string joined = pieces->header;
  for (llvm::ArrayRef<char> d : pieces->data)
    joined.append(d.begin(), d.end());
  CHECK(joined == *whole);
  // The checks see the borrowed bytes: a wrong size is refused.
  borrowed[0].borrowed = borrowed[0].borrowed->drop_back(4);
  Result<SafetensorsPieces> bad = layOutSafetensors("w", borrowed);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() ==
        "w: tensor 'z': 8 bytes given, but shape [3] x F32 needs 12");
}

TEST_CASE("writer replaces an existing file", "[safetensors]") {
  TempDir dir("st");
  const std::string path = dir.file("w.safetensors");
  writeBytes(path, "old contents");
  REQUIRE(Outcome(writeSafetensors(
                      path, {makeTensor("w", {1}, std::vector<float>{7})}))
              .ok());
  Result<SafetensorsFile> file = SafetensorsFile::open(path);
  REQUIRE(file.ok());
  CHECK(readDoubles(*file, "w") == std::vector<double>{7.0});
  CHECK(dir.list() == std::vector<std::string>{"w.safetensors"});
}
