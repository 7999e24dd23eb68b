//===- Result.h - reading MixIO's errors in tests -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// MixIO returns llvm::Error and llvm::Expected<T>, which must be consumed
// exactly once and cannot be inspected twice. The tests hold them as an
// Outcome (what an llvm::Error said) or a Result<T> (the value or that
// Outcome), which can be read as often as assertions need.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_TESTS_UNIT_IO_RESULT_H
#define MIXC_TESTS_UNIT_IO_RESULT_H

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <system_error>
#include <utility>

namespace mix::io::test {

/// The message and error code of an llvm::Error (consumed); ok() for
/// success.
class Outcome {
public:
  Outcome() = default;
  Outcome(llvm::Error error) {
    llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
      if (!failed)
        code_ = e.convertToErrorCode();
      message_ += (failed ? "\n" : "") + e.message();
      failed = true;
    });
  }

  bool ok() const { return !failed; }
  const std::string &message() const { return message_; }
  std::error_code code() const { return code_; }

private:
  bool failed = false;
  std::string message_;
  std::error_code code_;
};

/// The value of an llvm::Expected<T>, or the Outcome of its error.
template <typename T> class Result {
public:
  Result(llvm::Expected<T> expected) {
    if (expected)
      value.emplace(std::move(*expected));
    else
      outcome = Outcome(expected.takeError());
  }

  bool ok() const { return value.has_value(); }
  const Outcome &status() const { return outcome; }
  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }

private:
  std::optional<T> value;
  Outcome outcome;
};

/// `expected` as a Result, for reading a temporary in one assertion.
template <typename T> Result<T> result(llvm::Expected<T> expected) {
  return Result<T>(std::move(expected));
}

} // namespace mix::io::test

#endif // MIXC_TESTS_UNIT_IO_RESULT_H
