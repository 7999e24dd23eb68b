//===- InputLimits.cpp - bounded reading of untrusted input ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "support/InputLimits.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mix;

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

const char *describeFileType(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/// `size` 0: unknown (standard input).
llvm::Error tooLarge(llvm::StringRef what, llvm::StringRef path, uint64_t size,
                     uint64_t maxBytes) {
  if (size == 0)
    return error(what + " '" + path + "' is larger than the limit of " +
                 llvm::Twine(maxBytes) + " bytes");
  return error(what + " '" + path + "' is " + llvm::Twine(size) +
               " bytes, more than the limit of " + llvm::Twine(maxBytes) +
               " bytes");
}

/// Reads `fd` to its end, failing once more than `maxBytes` arrive.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readBounded(int fd, uint64_t maxBytes, llvm::StringRef what,
            llvm::StringRef path) {
  llvm::SmallString<0> data;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return error("cannot read " + what + " '" + path +
                   "': " + std::strerror(errno));
    }
    if (n == 0)
      break;
    if (data.size() + uint64_t(n) > maxBytes)
      return tooLarge(what, path, 0, maxBytes);
    data.append(chunk, chunk + n);
  }
  return llvm::MemoryBuffer::getMemBufferCopy(data, path);
}

} // namespace

llvm::Error mix::requireRegularFile(llvm::StringRef path,
                                    llvm::StringRef what) {
  struct stat st;
  llvm::SmallString<256> p(path);
  if (::stat(p.c_str(), &st) != 0)
    return llvm::Error::success(); // the reader reports missing files
  if (!S_ISREG(st.st_mode))
    return error("cannot read " + what + " '" + path +
                 "': " + describeFileType(st.st_mode) + ", not a regular file");
  return llvm::Error::success();
}

llvm::Expected<int> mix::openInputFile(llvm::StringRef path, uint64_t maxBytes,
                                       llvm::StringRef what,
                                       uint64_t *sizeOut) {
  llvm::SmallString<256> p(path);
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int code = errno; // kept, so callers can tell a missing file
    return llvm::createStringError(
        std::error_code(code, std::generic_category()),
        "cannot read " + what + " '" + path + "': " + std::strerror(code));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    llvm::Error e =
        error("cannot read " + what + " '" + path +
              "': " + describeFileType(st.st_mode) + ", not a regular file");
    ::close(fd);
    return std::move(e);
  }
  if (uint64_t(st.st_size) > maxBytes) {
    ::close(fd);
    return tooLarge(what, path, uint64_t(st.st_size), maxBytes);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (sizeOut)
    *sizeOut = uint64_t(st.st_size);
  return fd;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mix::readInputFile(llvm::StringRef path, uint64_t maxBytes,
                   llvm::StringRef what) {
  if (path == "-")
    return readBounded(STDIN_FILENO, maxBytes, what, "<stdin>");
  llvm::Expected<int> fd = openInputFile(path, maxBytes, what);
  if (!fd)
    return fd.takeError();
  auto buffer = readBounded(*fd, maxBytes, what, path);
  ::close(*fd);
  return buffer;
}

llvm::Error mix::checkNestingDepth(llvm::StringRef text, unsigned limit,
                                   NestingSyntax syntax, llvm::StringRef name) {
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  bool mlir = syntax == NestingSyntax::mlir;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"':
      // A string: skip to its closing quote (escapes skip a character).
      for (++i; i < e && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
      }
      break;
    case '/':
      if (mlir && i + 1 < e && text[i + 1] == '/')
        while (i + 1 < e && text[i + 1] != '\n')
          ++i;
      break;
    case '(':
    case '<':
    case '[':
    case '{':
      if (!mlir && (c == '(' || c == '<'))
        break;
      if (++depth > limit)
        return error(name + ":" + llvm::Twine(line) + ":" +
                     llvm::Twine(i - lineStart + 1) + ": nesting deeper than " +
                     llvm::Twine(limit) + " levels");
      break;
    case ')':
    case '>':
    case ']':
    case '}':
      if (!mlir && (c == ')' || c == '>'))
        break;
      if (c == '>' && i > 0 && text[i - 1] == '-')
        break; // `->`
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return llvm::Error::success();
}
