//===- mix-lsp-server.cpp - language server for mix models ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/LspServer.h"
#include "support/CrashHandler.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

int main(int argc, char **argv) {
  // No input may kill the server by a signal: one error line, exit 2.
  mix::installCrashHandlers("mix-lsp-server");
  return mix::lspServerMain(llvm::ArrayRef<const char *>(argv + 1, argc - 1),
                            stdin, llvm::outs(), llvm::errs());
}
