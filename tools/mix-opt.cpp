//===- mix-opt.cpp - mlir-opt with the mix dialect and passes -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Options.h"
#include "compiler/Pipeline.h"
#include "dialect/MixDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "passes/Passes.h"
#include "support/CrashHandler.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  // No input may kill the tool by a signal: one error line, exit 2.
  mix::installCrashHandlers("mix-opt");
  mlir::DialectRegistry registry;
  registry.insert<mix::MixDialect>();
  mix::registerMixPipelineDependencies(registry);
  mix::registerMixPasses();
  mix::registerMixPipelines(); // also every upstream pass
  // --version prints what every mixc tool prints.
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { mix::printToolVersion(os); });
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mixc optimizer driver\n", registry));
}
