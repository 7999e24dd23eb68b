//===- Format.cpp - formatting values for messages ------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

std::string mix::formatDim(int64_t dim) {
  return dim == std::numeric_limits<int64_t>::min() ? "?" : std::to_string(dim);
}

std::string mix::formatShape(llvm::ArrayRef<int64_t> dims) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(dims, os, [&](int64_t d) { os << formatDim(d); });
  os << ']';
  return s;
}

std::string mix::escapeControlCharacters(llvm::StringRef text) {
  std::string result;
  result.reserve(text.size());
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      result += "\\x";
      result += hex[c >> 4];
      result += hex[c & 15];
    } else {
      result += static_cast<char>(c);
    }
  }
  return result;
}
