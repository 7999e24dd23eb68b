//===- Common.cpp - helpers shared by the readers and writers of io/ -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "io/Common.h"

#include "support/OutputFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <set>
#include <vector>

namespace json = llvm::json;

namespace mix::io {

llvm::Error detail::ioError(llvm::StringRef path, llvm::StringRef what,
                            std::error_code ec) {
  return makeError(ec, concat(path, ": ", what, ec.message()));
}

std::optional<int64_t> detail::byteCount(llvm::ArrayRef<int64_t> shape,
                                         int64_t elementSize,
                                         int64_t *elements) {
  if (llvm::is_contained(shape, 0)) {
    *elements = 0;
    return 0;
  }
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      return std::nullopt;
  int64_t bytes;
  if (__builtin_mul_overflow(n, elementSize, &bytes))
    return std::nullopt;
  *elements = n;
  return bytes;
}

const char *detail::jsonKindName(const json::Value &value) {
  switch (value.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  return "a JSON value";
}

llvm::Error detail::jsonParseError(llvm::StringRef path, llvm::StringRef what,
                                   llvm::Error error) {
  // json::ParseError prints "[line:col, byte=N]: message"; its column is the
  // 1-based column of the last character read (0 for empty input).
  std::string text = llvm::toString(std::move(error));
  llvm::StringRef rest(text);
  std::string where;
  unsigned line = 0, column = 0;
  if (rest.consume_front("[") && !rest.consumeInteger(10, line) &&
      rest.consume_front(":") && !rest.consumeInteger(10, column)) {
    where = concat(":", line, ":", std::max(column, 1u));
    rest = rest.drop_until([](char c) { return c == ']'; });
    rest.consume_front("]");
    rest.consume_front(": ");
  } else {
    rest = text;
  }
  return makeError(std::errc::invalid_argument,
                   concat(path, where, ": invalid ", what, ": ", rest));
}

std::optional<std::string> detail::findDuplicateKey(llvm::StringRef validJson) {
  // One entry per open container: the keys seen so far for an object,
  // std::nullopt for an array.
  std::vector<std::optional<std::set<std::string>>> open;
  for (size_t i = 0, e = validJson.size(); i < e; ++i) {
    const char c = validJson[i];
    if (c == '{') {
      open.emplace_back(std::set<std::string>());
    } else if (c == '[') {
      open.emplace_back(std::nullopt);
    } else if (c == '}' || c == ']') {
      open.pop_back();
    } else if (c == '"') {
      size_t end = i + 1;
      while (validJson[end] != '"')
        end += validJson[end] == '\\' ? 2 : 1;
      llvm::StringRef quoted = validJson.slice(i, end + 1);
      i = end;
      size_t next = validJson.find_first_not_of(" \t\r\n", end + 1);
      if (open.empty() || !open.back() || next == llvm::StringRef::npos ||
          validJson[next] != ':')
        continue;
      // Decode escapes so that "a" and "\u0061" compare equal.
      llvm::Expected<json::Value> key = json::parse(quoted);
      if (!key) {
        llvm::consumeError(key.takeError());
        continue;
      }
      std::string name = key->getAsString().value_or("").str();
      if (!open.back()->insert(name).second)
        return name;
    }
  }
  return std::nullopt;
}

llvm::Error detail::writeFileAtomically(llvm::StringRef path,
                                        std::string contents) {
  OutputFiles::Options options;
  options.createDirectories = false;
  OutputFiles files(options);
  files.add(path.str(), std::move(contents));
  return prefixError(path + ": ", files.commit());
}

} // namespace mix::io
