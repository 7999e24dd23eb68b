//===- Safetensors.h - read and write safetensors weight files -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The subset of the Hugging Face safetensors format that mixc reads and
// writes (see docs/formats.md): an 8-byte little-endian header length N, N
// bytes of JSON header mapping tensor names to {dtype, shape, data_offsets}
// plus an optional "__metadata__" string map, then the little-endian,
// row-major data buffer.
//
// Errors are llvm::Error values (support/Error.h) with one-line messages
// that start with the file path; their error code tells the kind of failure
// (std::errc::invalid_argument for malformed contents, the errno value of a
// failed system call, ...). The library uses no exceptions and no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_IO_SAFETENSORS_H
#define MIXC_IO_SAFETENSORS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mix::io {

/// Element types of the safetensors subset mixc accepts.
enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

/// The safetensors spelling of `dtype` ("F32", "BF16", "BOOL", ...).
llvm::StringRef dtypeName(DType dtype);
/// Bytes per element of `dtype`.
int64_t dtypeSize(DType dtype);
/// Parses a safetensors dtype spelling; std::nullopt if unknown.
std::optional<DType> parseDType(llvm::StringRef name);

/// One tensor of an open file. `data` points into the file contents owned by
/// the SafetensorsFile and is not necessarily aligned.
struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t numElements = 0;
  const uint8_t *data = nullptr;
  int64_t byteSize = 0;
};

/// A validated safetensors file held in memory (memory-mapped when the
/// platform allows). Movable; TensorInfo pointers stay valid across moves.
class SafetensorsFile {
public:
  /// Reads and validates `path`: length prefix, JSON header, known dtypes,
  /// data_offsets consistent with shape x dtype, inside the data buffer and
  /// not overlapping each other. A file that cannot be read fails with the
  /// errno code (std::errc::no_such_file_or_directory if it is missing), a
  /// malformed one with std::errc::invalid_argument.
  static llvm::Expected<SafetensorsFile> open(const std::string &path);

  SafetensorsFile(SafetensorsFile &&) noexcept;
  SafetensorsFile &operator=(SafetensorsFile &&) noexcept;
  ~SafetensorsFile();

  /// The tensor called `name`, or nullptr.
  const TensorInfo *find(llvm::StringRef name) const;
  /// All tensor names, sorted.
  std::vector<std::string> names() const;
  /// The "__metadata__" map (empty if the file has none).
  const std::map<std::string, std::string> &metadata() const {
    return metadata_;
  }
  const std::string &path() const { return path_; }

  /// The tensor `name`, checked against what the model declares:
  /// "<path>: no tensor 'x' (the file has: a, b, ...)" if absent
  /// (std::errc::no_such_file_or_directory), "<path>: tensor 'x' has dtype
  /// F16, the model declares F32" or "... has shape [2, 3], the model
  /// declares [3, 2]" on mismatch (std::errc::invalid_argument).
  llvm::Expected<const TensorInfo *>
  get(llvm::StringRef name, DType expectedDtype,
      llvm::ArrayRef<int64_t> expectedShape) const;

  /// The values of tensor `name` converted exactly to double (F16/BF16
  /// including subnormals, infinities and NaN). Fails with
  /// std::errc::result_out_of_range for an I64 value that has no exact
  /// double, std::errc::invalid_argument for a BOOL byte other than 0 or 1
  /// and std::errc::no_such_file_or_directory for an unknown name.
  llvm::Expected<std::vector<double>> readAsDouble(llvm::StringRef name) const;

private:
  SafetensorsFile() = default;
  /// Fills tensors_ and metadata_ from the JSON header; `data` and `dataSize`
  /// delimit the data buffer that follows it.
  llvm::Error parseHeader(llvm::StringRef headerText, const uint8_t *data,
                          uint64_t dataSize);

  std::string path_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  std::map<std::string, TensorInfo, std::less<>> tensors_;
  std::map<std::string, std::string> metadata_;
};

/// A tensor to store: product(shape) elements of `dtype`, little-endian,
/// row-major, held in `bytes` or, when `borrowed` is set, in memory the
/// caller keeps alive until the file is written (an importer's weights are
/// written from its parsed model, not copied first).
struct TensorToWrite {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  std::optional<llvm::ArrayRef<uint8_t>> borrowed;

  llvm::ArrayRef<uint8_t> data() const {
    return borrowed ? *borrowed : llvm::ArrayRef<uint8_t>(bytes);
  }
};

/// A safetensors file as its header (8-byte length, JSON, padding) and its
/// tensors' bytes in file order, pointing into the TensorToWrite values it
/// was made from: for writers that stream (mix::OutputFiles::add with
/// borrowed pieces) rather than build the file in memory.
struct SafetensorsPieces {
  std::string header;
  std::vector<llvm::ArrayRef<char>> data;
};

/// The pieces of the file serializeSafetensors returns whole.
llvm::Expected<SafetensorsPieces>
layOutSafetensors(const std::string &path,
                  llvm::ArrayRef<TensorToWrite> tensors,
                  const std::map<std::string, std::string> &metadata = {});

/// Builders of TensorToWrite from host values (the host is little-endian, as
/// all targets mixc supports). `values.size()` must equal product(shape);
/// writeSafetensors reports a mismatch.
TensorToWrite makeTensor(std::string name, std::vector<int64_t> shape,
                         llvm::ArrayRef<double> values);
TensorToWrite makeTensor(std::string name, std::vector<int64_t> shape,
                         llvm::ArrayRef<float> values);
TensorToWrite makeTensor(std::string name, std::vector<int64_t> shape,
                         llvm::ArrayRef<int32_t> values);
TensorToWrite makeTensor(std::string name, std::vector<int64_t> shape,
                         llvm::ArrayRef<int8_t> values);

/// The bytes of the safetensors file writeSafetensors writes (`path` only
/// names it in errors): for callers that commit several files together
/// (mix::OutputFiles).
llvm::Expected<std::string>
serializeSafetensors(const std::string &path,
                     llvm::ArrayRef<TensorToWrite> tensors,
                     const std::map<std::string, std::string> &metadata = {});

/// Writes a safetensors file: header padded with spaces to a multiple of 8
/// bytes, tensors stored contiguously in sorted-name order. Rejects duplicate
/// or reserved names, negative dimensions, byte counts that do not match the
/// shape and BOOL bytes other than 0/1 (std::errc::invalid_argument).
/// Atomic (mix::OutputFiles): the file is written beside `path` and renamed
/// over it, so readers never see a half-written file; on failure `path` is
/// untouched and no temporary file is left. The directory must exist.
llvm::Error
writeSafetensors(const std::string &path, llvm::ArrayRef<TensorToWrite> tensors,
                 const std::map<std::string, std::string> &metadata = {});

} // namespace mix::io

#endif // MIXC_IO_SAFETENSORS_H
