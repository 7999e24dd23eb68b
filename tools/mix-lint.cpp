//===- mix-lint.cpp - precision-policy gate for mix models ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/LintDriver.h"
#include "support/CrashHandler.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // No input may kill the tool by a signal: one error line, exit 2.
  mix::installCrashHandlers("mix-lint");
  return mix::lintMain(llvm::ArrayRef<const char *>(argv + 1, argc - 1),
                       llvm::outs(), llvm::errs());
}
