//===- CrashHandler.cpp - no input may kill a tool by a signal ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The handlers run on an alternate signal stack (so a stack overflow can be
// reported) and only use async-signal-safe calls, except for LLVM's own
// RunInterruptHandlers, which LLVM's signal handler calls in the same place.
//
//===----------------------------------------------------------------------===//

#include "support/CrashHandler.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <unistd.h>

using namespace mix;

namespace {

const char *gToolName = "mixc";

/// write(2) of a NUL-terminated string, ignoring short writes.
void writeString(const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

[[noreturn]] void dieWithInternalError(const char *what, const char *detail) {
  llvm::sys::RunInterruptHandlers(); // removes RemoveFileOnSignal files
  writeString(gToolName);
  writeString(": error: internal error: ");
  writeString(what);
  if (detail && *detail) {
    writeString(": ");
    writeString(detail);
  }
  writeString("; this is a bug in mixc, please report it with the input\n");
  ::_exit(kInternalErrorExitCode);
}

const char *describeSignal(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "crashed with SIGSEGV (segmentation fault or stack overflow)";
  case SIGBUS:
    return "crashed with SIGBUS (bus error)";
  case SIGILL:
    return "crashed with SIGILL (illegal instruction)";
  case SIGFPE:
    return "crashed with SIGFPE (arithmetic exception)";
  case SIGABRT:
    return "aborted (SIGABRT)";
  case SIGTRAP:
    return "crashed with SIGTRAP";
  case SIGSYS:
    return "crashed with SIGSYS (bad system call)";
  default:
    return "crashed with a fatal signal";
  }
}

void onFatalSignal(int sig, siginfo_t *, void *) {
  dieWithInternalError(describeSignal(sig), nullptr);
}

void onFatalError(void *, const char *reason, bool) {
  dieWithInternalError("fatal error", reason);
}

void onBadAlloc(void *, const char *reason, bool) {
  dieWithInternalError("out of memory", reason);
}

void onTerminate() {
  dieWithInternalError("uncaught exception (std::terminate)", nullptr);
}

/// A signal stack large enough for the handler (which does very little).
void installAlternateStack() {
  static char *stack = nullptr;
  if (stack)
    return;
  constexpr size_t size = 1 << 16;
  stack = static_cast<char *>(std::malloc(size));
  if (!stack)
    return;
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = size;
  ss.ss_flags = 0;
  sigaltstack(&ss, nullptr);
}

void noopCallback(void *) {}

} // namespace

void mix::installCrashHandlers(const char *toolName) {
  static bool installed = false;
  if (installed)
    return;
  installed = true;
  gToolName = toolName;
  std::signal(SIGXFSZ, SIG_IGN);
  if (const char *env = std::getenv("MIXC_CRASH_BACKTRACE"))
    if (*env && std::strcmp(env, "0") != 0)
      return;

  // Let LLVM register its handlers now (it does so only once per process),
  // then take the fatal signals over: LLVM registering again later (e.g. for
  // RemoveFileOnSignal) keeps ours.
  llvm::sys::AddSignalHandler(noopCallback, nullptr);
  installAlternateStack();
  struct sigaction action{};
  action.sa_sigaction = onFatalSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS})
    sigaction(sig, &action, nullptr);

  llvm::install_fatal_error_handler(onFatalError, nullptr);
  llvm::install_bad_alloc_error_handler(onBadAlloc, nullptr);
  llvm::install_out_of_memory_new_handler();
  std::set_terminate(onTerminate);
}
