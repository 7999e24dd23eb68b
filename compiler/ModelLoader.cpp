//===- ModelLoader.cpp - reading mix models with one-line errors ----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/ModelLoader.h"
#include "dialect/MixDialect.h"
#include "dialect/MixOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mix;

void mix::loadMixDialects(MLIRContext &context) {
  context.loadDialect<MixDialect, func::FuncDialect>();
}

std::string mix::formatLocation(Location loc) {
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    return (fileLoc.getFilename().getValue() + ":" +
            llvm::Twine(fileLoc.getLine()) + ":" +
            llvm::Twine(fileLoc.getColumn()))
        .str();
  return "unknown location";
}

FirstErrorCollector::FirstErrorCollector(MLIRContext &context)
    : context(context) {
  id = context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && first.empty())
      first = formatLocation(diag.getLocation()) + ": " + diag.str();
    return success();
  });
}

FirstErrorCollector::~FirstErrorCollector() {
  context.getDiagEngine().eraseHandler(id);
}

llvm::Expected<OwningOpRef<ModuleOp>> mix::loadModel(StringRef path,
                                                     MLIRContext &context) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read model '" + path +
                "': " + buffer.getError().message());
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  FirstErrorCollector errors(context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return fail(errors.hasError() ? errors.message()
                                  : (path + ": invalid model").str());
  if (module->getOps<NetworkOp>().empty())
    return fail(path + ": no 'mix.network' in the model");
  return std::move(module);
}
