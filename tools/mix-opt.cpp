//===- mix-opt.cpp - mlir-opt with the mix dialect and passes -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "passes/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mix::MixDialect, mlir::func::FuncDialect>();
  mlir::registerTransformsPasses();
  mix::registerMixPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mixc optimizer driver\n", registry));
}
