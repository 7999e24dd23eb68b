//===- mixc.cpp - the mixc ahead-of-time compiler -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver.h"
#include "support/CrashHandler.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // No input may kill the tool by a signal: one error line, exit 2.
  mix::installCrashHandlers("mixc");
  return mix::mixcMain(llvm::ArrayRef<const char *>(argv + 1, argc - 1),
                       llvm::outs(), llvm::errs());
}
