//===-- FuzzInputFile.cpp - a fuzzer input behind a file path -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "FuzzInputFile.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace {

[[noreturn]] void die(const char *what) {
  std::fprintf(stderr, "fuzz input file: %s: %s\n", what, std::strerror(errno));
  std::abort();
}

} // namespace

const std::string &mix::fuzz::writeInputFile(const uint8_t *data, size_t size) {
  static const int fd = [] {
    int fd = ::memfd_create("mixc-fuzz-input", MFD_CLOEXEC);
    if (fd < 0)
      die("memfd_create");
    return fd;
  }();
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (::ftruncate(fd, 0) != 0)
    die("ftruncate");
  for (size_t done = 0; done < size;) {
    ssize_t n = ::pwrite(fd, data + done, size - done, done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      die("pwrite");
    }
    done += static_cast<size_t>(n);
  }
  return path;
}
