//===- Common.h - helpers shared by the readers and writers of io/ -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Internal to MixIO: the error constructors that give every message its
// "<path>: " prefix and its error code, the JSON helpers of both file
// formats, and the atomic write of one file.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_IO_COMMON_H
#define MIXC_IO_COMMON_H

#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <system_error>

namespace llvm::json {
class Value;
} // namespace llvm::json

namespace mix::io::detail {

/// Appends one piece of a message: strings and integers as they print,
/// floating-point numbers with six significant digits ("%g").
inline void appendPiece(llvm::raw_ostream &os, double v) {
  os << llvm::format("%g", v);
}
template <typename T> void appendPiece(llvm::raw_ostream &os, const T &v) {
  os << v;
}

/// The concatenation of `pieces`.
template <typename... Pieces> std::string concat(const Pieces &...pieces) {
  std::string s;
  llvm::raw_string_ostream os(s);
  (appendPiece(os, pieces), ...);
  return s;
}

/// An error with `code` and the message "<path>: <pieces...>", control
/// characters escaped (names and keys come from untrusted files).
template <typename... Pieces>
llvm::Error fileError(std::errc code, llvm::StringRef path,
                      const Pieces &...pieces) {
  return makeError(code,
                   escapeControlCharacters(concat(path, ": ", pieces...)));
}

/// Malformed contents or arguments (std::errc::invalid_argument).
template <typename... Pieces>
llvm::Error invalid(llvm::StringRef path, const Pieces &...pieces) {
  return fileError(std::errc::invalid_argument, path, pieces...);
}

/// Something asked for is absent (std::errc::no_such_file_or_directory).
template <typename... Pieces>
llvm::Error notFound(llvm::StringRef path, const Pieces &...pieces) {
  return fileError(std::errc::no_such_file_or_directory, path, pieces...);
}

/// An I/O failure "<path>: <what><ec's message>" with the code `ec`.
llvm::Error ioError(llvm::StringRef path, llvm::StringRef what,
                    std::error_code ec);

/// product(shape) * elementSize, or std::nullopt on int64 overflow; the
/// element count in `*elements`. Any zero dimension makes the product zero,
/// whatever the other dimensions are.
std::optional<int64_t> byteCount(llvm::ArrayRef<int64_t> shape,
                                 int64_t elementSize, int64_t *elements);

/// "a number", "an object", "null", ...: the kind of `value`, for messages.
const char *jsonKindName(const llvm::json::Value &value);

/// Consumes an llvm::json::parse error and returns the invalid-argument
/// error "<path>:<line>:<col>: invalid <what>: <message>".
llvm::Error jsonParseError(llvm::StringRef path, llvm::StringRef what,
                           llvm::Error error);

/// The first key that appears twice in one object of `validJson` (text that
/// llvm::json::parse accepted; the parser itself keeps only one of them).
std::optional<std::string> findDuplicateKey(llvm::StringRef validJson);

/// Writes `contents` to `path` with mix::OutputFiles: a temporary file
/// beside `path` renamed over it, removed on failure, so readers never see a
/// half-written file. The directory must exist. Errors start with "<path>: ".
llvm::Error writeFileAtomically(llvm::StringRef path, std::string contents);

} // namespace mix::io::detail

#endif // MIXC_IO_COMMON_H
