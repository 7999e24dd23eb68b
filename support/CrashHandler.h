//===- CrashHandler.h - no input may kill a tool by a signal ----*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Every mixc tool calls `installCrashHandlers` first thing in `main`. After
// it, a crash anywhere in the tool -- a fault in MLIR's parser, a stack
// overflow, an abort, an LLVM fatal error, memory exhaustion -- ends the
// process with ONE line on standard error and exit code 2 instead of a
// signal:
//
//   mixc: error: internal error: crashed with SIGSEGV (segmentation fault);
//   this is a bug in mixc, please report it with the input
//
// Temporary files registered with llvm::sys::RemoveFileOnSignal are removed
// first, so no partial output is left behind. SIGXFSZ (a file-size limit) is
// ignored, so an oversized write fails with EFBIG and is reported by the
// code that writes. Setting MIXC_CRASH_BACKTRACE=1 in the environment keeps
// LLVM's behaviour instead (stack trace, then the signal), for debugging.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_SUPPORT_CRASHHANDLER_H
#define MIXC_SUPPORT_CRASHHANDLER_H

namespace mix {

/// The exit code of a tool that crashed (the same as a usage error: the
/// input could not be processed).
constexpr int kInternalErrorExitCode = 2;

/// Installs the handlers described above. `toolName` must outlive the
/// process (a string literal). Idempotent.
void installCrashHandlers(const char *toolName);

} // namespace mix

#endif // MIXC_SUPPORT_CRASHHANDLER_H
