//===- Error.cpp - the one error type of the compiler side ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "support/Error.h"

using namespace mix;

llvm::Error mix::makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error mix::makeError(std::error_code code, const llvm::Twine &message) {
  return llvm::createStringError(code, message);
}

llvm::Error mix::makeError(std::errc code, const llvm::Twine &message) {
  return llvm::createStringError(std::make_error_code(code), message);
}

llvm::Error mix::prefixError(const llvm::Twine &prefix, llvm::Error error) {
  const std::string text = prefix.str();
  return llvm::handleErrors(
      std::move(error), [&](const llvm::ErrorInfoBase &info) {
        return makeError(info.convertToErrorCode(), text + info.message());
      });
}
