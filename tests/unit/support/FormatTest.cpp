//===- FormatTest.cpp - tests of support/Format.h -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "support/Format.h"

#include <string>

using namespace mix;

TEST_CASE("escapeControlCharacters", "[format]") {
  CHECK(escapeControlCharacters("plain text") == "plain text");
  CHECK(escapeControlCharacters(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(escapeControlCharacters("\n\t\x1b[0m\x7f") ==
        "\\x0a\\x09\\x1b[0m\\x7f");
  // Bytes >= 0x80 (UTF-8) are kept: "é" and "→".
  CHECK(escapeControlCharacters("\xc3\xa9\xe2\x86\x92") ==
        "\xc3\xa9\xe2\x86\x92");
  CHECK(escapeControlCharacters("") == "");
}
