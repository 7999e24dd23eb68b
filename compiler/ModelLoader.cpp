//===- ModelLoader.cpp - reading mix models with one-line errors ----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/ModelLoader.h"
#include "compiler/Diagnostics.h"
#include "dialect/MixDialect.h"
#include "dialect/MixOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "support/InputLimits.h"
#ifdef MIXC_HAVE_ONNX
#include "compiler/onnx/OnnxImport.h"
#include "compiler/onnx/PrecisionPlan.h"
#endif
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>

using namespace mlir;
using namespace mix;

void mix::loadMixDialects(MLIRContext &context) {
  context.loadDialect<MixDialect, func::FuncDialect>();
}

std::string mix::formatLocation(Location loc) {
  SourcePosition pos = getSourcePosition(loc);
  if (pos.line == 0)
    return "unknown location";
  std::string text = pos.file + ":" + std::to_string(pos.line) + ":" +
                     std::to_string(pos.column);
  // Imported ONNX models name each layer after its node (line = node
  // number): "model.onnx:3:1 (/fc1/Gemm)".
  if (auto name = dyn_cast<NameLoc>(loc))
    text += " (" + name.getName().str() + ")";
  return text;
}

FirstErrorCollector::FirstErrorCollector(MLIRContext &context)
    : context(context) {
  id = context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error || !first.empty())
      return success();
    first = locationPrefix(diag.getLocation()) + diag.str();
    return success();
  });
}

FirstErrorCollector::~FirstErrorCollector() {
  context.getDiagEngine().eraseHandler(id);
}

llvm::Expected<OwningOpRef<ModuleOp>>
mix::loadModel(StringRef path, MLIRContext &context,
               llvm::SourceMgr *callerSourceMgr,
               const ModelLoadOptions &loadOptions) {
#ifdef MIXC_HAVE_ONNX
  // An ONNX model is imported in process, every initializer inline
  // (docs/onnx.md); its errors are one line that starts with the path.
  if (isOnnxPath(path)) {
    std::optional<PrecisionPlan> plan;
    if (!loadOptions.precisionPlanPath.empty()) {
      llvm::Expected<PrecisionPlan> loaded =
          loadPrecisionPlan(loadOptions.precisionPlanPath, context);
      if (!loaded)
        return loaded.takeError();
      plan = std::move(*loaded);
    }
    OnnxImportOptions options;
    options.inlineAll = true;
    options.plan = plan ? &*plan : nullptr;
    llvm::Expected<ImportedOnnxModel> imported =
        importOnnxFile(path, context, options);
    if (!imported)
      return imported.takeError();
    return std::move(imported->module);
  }
#endif
  if (!loadOptions.precisionPlanPath.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "--precision-plan applies to ONNX models (MODEL.onnx), not to '" +
            path + "'");
  // Bounded, regular files only (a FIFO or /dev/zero is an error, not a
  // hang).
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path, limits::kMaxModelBytes, "model");
  if (!buffer)
    return buffer.takeError();
  return loadModelFromBuffer(std::move(*buffer), path, context,
                             callerSourceMgr);
}

llvm::Expected<OwningOpRef<ModuleOp>>
mix::loadModelFromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                         StringRef name, MLIRContext &context,
                         llvm::SourceMgr *callerSourceMgr) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  // loadModel's read bounds the size already; an in-memory model is held
  // to the same limit.
  if (buffer->getBufferSize() > limits::kMaxModelBytes)
    return fail("model '" + name + "' is " +
                llvm::Twine(buffer->getBufferSize()) +
                " bytes, more than the limit of " +
                llvm::Twine(limits::kMaxModelBytes) + " bytes");
  // Nesting bounded before the recursive parser sees it.
  if (llvm::Error e =
          checkNestingDepth(buffer->getBuffer(), limits::kMaxModelNesting,
                            NestingSyntax::mlir, name))
    return std::move(e);
  llvm::SourceMgr localSourceMgr;
  llvm::SourceMgr &sourceMgr =
      callerSourceMgr ? *callerSourceMgr : localSourceMgr;
  // The parser reads the main (first) buffer: the caller's is fresh.
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  std::optional<FirstErrorCollector> errors;
  if (!callerSourceMgr)
    errors.emplace(context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return fail(errors && errors->hasError()
                    ? errors->message()
                    : (name + ": invalid model").str());
  if (module->getOps<NetworkOp>().empty())
    return fail(name + ": no 'mix.network' in the model");
  return std::move(module);
}
