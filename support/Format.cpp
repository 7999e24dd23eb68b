//===- Format.cpp - formatting values for messages ------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "support/Format.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

std::string mix::formatShape(llvm::ArrayRef<int64_t> dims) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(dims, os);
  os << ']';
  return s;
}
