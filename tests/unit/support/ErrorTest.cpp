//===- ErrorTest.cpp - tests of support/Error.h and support/Format.h -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// This file also provides the Catch2 main of mix_support_tests.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "support/Error.h"
#include "support/Format.h"

using namespace mix;

namespace {
/// The message and error code of `error` (consumed).
std::pair<std::string, std::error_code> describe(llvm::Error error) {
  std::pair<std::string, std::error_code> result;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
    result = {e.message(), e.convertToErrorCode()};
  });
  return result;
}
} // namespace

TEST_CASE("makeError prints its message alone", "[support]") {
  llvm::Error plain = makeError("model.mlir:3:5: bad " + llvm::Twine(42));
  REQUIRE(static_cast<bool>(plain));
  CHECK(llvm::toString(std::move(plain)) == "model.mlir:3:5: bad 42");

  // The code does not show in the message but converts back.
  auto [message, code] =
      describe(makeError(std::errc::invalid_argument, "w.st: broken"));
  CHECK(message == "w.st: broken");
  CHECK(code == std::errc::invalid_argument);

  llvm::Error errno2 =
      makeError(std::make_error_code(std::errc::no_such_file_or_directory),
                "x: cannot read");
  CHECK(llvm::errorToErrorCode(std::move(errno2)) ==
        std::errc::no_such_file_or_directory);
}

TEST_CASE("prefixError keeps the code and success", "[support]") {
  CHECK_FALSE(static_cast<bool>(prefixError("p: ", llvm::Error::success())));

  auto [message, code] = describe(
      prefixError("out.safetensors: ", makeError(std::errc::is_a_directory,
                                                 "cannot rename 'a' to 'b'")));
  CHECK(message == "out.safetensors: cannot rename 'a' to 'b'");
  CHECK(code == std::errc::is_a_directory);

  // Each error of a list gets the prefix.
  llvm::Error list = llvm::joinErrors(makeError("first"), makeError("second"));
  CHECK(llvm::toString(prefixError("f: ", std::move(list))) ==
        "f: first\nf: second");
}

TEST_CASE("formatShape", "[support]") {
  CHECK(formatShape({}) == "[]");
  CHECK(formatShape({7}) == "[7]");
  CHECK(formatShape({2, 3, 4}) == "[2, 3, 4]");
  // MLIR's dynamic dimension (ShapedType::kDynamic, INT64_MIN) is `?`.
  CHECK(formatShape({-9223372036854775807LL - 1, 0}) == "[?, 0]");
  CHECK(formatShape({-9223372036854775807LL - 1, 784}) == "[?, 784]");
  CHECK(formatDim(-9223372036854775807LL - 1) == "?");
  CHECK(formatDim(-9223372036854775807LL) == "-9223372036854775807");
  CHECK(formatDim(0) == "0");
}
