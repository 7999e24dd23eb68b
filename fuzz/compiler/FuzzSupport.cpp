//===-- FuzzSupport.cpp - what the compiler fuzzers share -----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

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

mlir::MLIRContext &mix::fuzz::fuzzContext(FuzzDialects dialects) {
  static mlir::MLIRContext *context = [dialects] {
    mlir::DialectRegistry registry;
    if (dialects == FuzzDialects::pipeline)
      mix::registerMixPipelineDependencies(registry);
    auto *ctx =
        new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    mix::loadMixDialects(*ctx);
    ctx->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
    return ctx;
  }();
  return *context;
}

void mix::fuzz::invariantViolated(const char *fuzzer, const char *what,
                                  llvm::StringRef detail) {
  std::fprintf(stderr, "%s: invariant violated: %s%s%.*s\n", fuzzer, what,
               detail.empty() ? "" : ": ", static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

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
