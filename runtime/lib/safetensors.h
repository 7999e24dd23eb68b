//===-- safetensors.h - Safetensors files of mixrt's trainer ----*- C++ -*-===//
//
// A small, strict reader and writer of the safetensors format (8-byte
// little-endian header length N, N bytes of JSON header, padded with spaces,
// then the data area; see https://github.com/huggingface/safetensors), for
// mixrt_train_export() and the initial weights of mixrt_train_start(). The
// reader accepts only what the format allows: a JSON object of tensor
// entries {"dtype": string, "shape": [integers], "data_offsets": [begin,
// end]} and an optional "__metadata__" object of strings; anything else is
// DATA_LOSS naming the file and the byte offset.
//
//===----------------------------------------------------------------------===//

#ifndef MIXRT_LIB_SAFETENSORS_H
#define MIXRT_LIB_SAFETENSORS_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace mixrt::detail {

/// One tensor entry of a safetensors header.
struct SafetensorsEntry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  /// Offsets into the data area (begin <= end <= data size).
  uint64_t begin = 0;
  uint64_t end = 0;
};

/// Bytes per element of a safetensors dtype, or 0 if unknown.
int64_t safetensorsDTypeSize(absl::string_view dtype);

/// An open safetensors file whose header was parsed and validated.
class SafetensorsReader {
public:
  /// Opens and validates `path`: NOT_FOUND if it cannot be opened (with
  /// strerror), DATA_LOSS if it is truncated or malformed. Messages start
  /// with `prefix` (e.g. "train_start: network 'n'").
  static absl::StatusOr<std::unique_ptr<SafetensorsReader>>
  Open(absl::string_view prefix, const std::string &path);
  ~SafetensorsReader();

  /// The entry named `name`, or nullptr.
  const SafetensorsEntry *Find(absl::string_view name) const;

  /// Reads an F64, F32, F16 or BF16 entry, converted exactly to double
  /// (INVALID_ARGUMENT for another dtype, DATA_LOSS if the read fails).
  absl::Status ReadF64(absl::string_view prefix, const SafetensorsEntry &entry,
                       std::vector<double> &out) const;

  const std::string &path() const { return path_; }

private:
  SafetensorsReader() = default;
  std::string path_;
  std::FILE *file_ = nullptr;
  uint64_t dataStart_ = 0;
  std::vector<SafetensorsEntry> entries_;
};

/// Parses a safetensors JSON header (`fileOffset` is the byte offset of its
/// first byte in the file, for messages) whose data area has `dataSize`
/// bytes. Exposed for tests.
absl::Status parseSafetensorsHeader(absl::string_view prefix,
                                    absl::string_view path,
                                    absl::string_view header,
                                    uint64_t fileOffset, uint64_t dataSize,
                                    std::vector<SafetensorsEntry> &out);

/// A tensor to write (little-endian data of `bytes` bytes).
struct SafetensorsTensor {
  const char *name;
  const char *dtype; ///< "F32" or "F64"
  absl::Span<const int64_t> shape;
  const void *data;
  int64_t bytes;
};

/// The header (length prefix included) of a file holding `tensors` in order.
std::string safetensorsHeader(absl::Span<const SafetensorsTensor> tensors);

/// Writes `tensors` to `path` through a temporary file in the same directory
/// (`<path>.tmp.<pid>`) renamed over it; on failure the temporary file is
/// removed and the result is UNAVAILABLE naming the path and the reason.
absl::Status writeSafetensors(absl::string_view op, const std::string &path,
                              absl::Span<const SafetensorsTensor> tensors);

} // namespace mixrt::detail

#endif // MIXRT_LIB_SAFETENSORS_H
