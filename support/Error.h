//===- Error.h - the one error type of the compiler side ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Everything on the compiler side (io/, compiler/, the tools) reports
// failures as llvm::Error / llvm::Expected<T> carrying a one-line message;
// absl::Status stays in the runtime's C++ API. An error may carry a
// std::error_code (an errno value, std::errc::invalid_argument, ...) so that
// callers and tests can tell kinds of failure apart; printing it
// (llvm::toString) gives the message alone.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_SUPPORT_ERROR_H
#define MIXC_SUPPORT_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <system_error>

namespace mix {

/// A failure with `message` and no particular error code.
llvm::Error makeError(const llvm::Twine &message);

/// A failure with `message` that converts to `code`
/// (llvm::errorToErrorCode); the message is printed without the code's text.
llvm::Error makeError(std::error_code code, const llvm::Twine &message);
llvm::Error makeError(std::errc code, const llvm::Twine &message);

/// `error` with `prefix` put in front of its message (of each message, for a
/// list of errors); the error codes are kept. Success stays success.
llvm::Error prefixError(const llvm::Twine &prefix, llvm::Error error);

} // namespace mix

#endif // MIXC_SUPPORT_ERROR_H
