//===- mix-opt.cpp - mlir-opt with the mix dialect and passes -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Pipeline.h"
#include "dialect/MixDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "passes/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mix::MixDialect>();
  mix::registerMixPipelineDependencies(registry);
  mix::registerMixPasses();
  mix::registerMixPipelines(); // also every upstream pass
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mixc optimizer driver\n", registry));
}
