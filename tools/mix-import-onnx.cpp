//===- mix-import-onnx.cpp - ONNX models into the mix dialect -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
//   mix-import-onnx model.onnx -o model.mlir [--weights-out W.safetensors]
//                   [--precision-plan P.json] [--batch N] [--inline-limit B]
//
// Writes the imported model (and the external weights) all or nothing: any
// error is one line on stderr, exit 2, and no file is written.
//
//===----------------------------------------------------------------------===//

#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "compiler/onnx/OnnxImport.h"
#include "compiler/onnx/PrecisionPlan.h"
#include "io/Safetensors.h"
#include "support/CrashHandler.h"
#include "support/OutputFiles.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mix;

namespace cl = llvm::cl;

namespace {

struct ImportOptions {
  std::string modelPath;
  std::string outputPath;
  std::string weightsPath;
  std::string planPath;
  int64_t batch = 0;
  int64_t inlineLimit = 1024;
  bool nodeLocations = false;
  bool help = false, version = false;

  void bindOptions(OptionsBinder &b) {
    b.opt("o", outputPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("the mix model to write ('-': standard output)"));
    b.opt("weights-out", weightsPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("safetensors file for the initializers larger\n"
                   "than --inline-limit (default: inline them all)"));
    b.opt("precision-plan", planPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("JSON precision plan (docs/onnx.md)"));
    b.opt("batch", batch, {}, cl::value_desc("N"),
          cl::desc("static size of a symbolic leading (batch)\n"
                   "dimension (default: the dynamic batch '?')"));
    b.opt("inline-limit", inlineLimit, {}, cl::value_desc("BYTES"),
          cl::desc("with --weights-out, initializers of at most\n"
                   "this many bytes stay inline (default: 1024)"));
    b.flag("node-locations", nodeLocations, true,
           cl::desc("keep every op's ONNX location (node number and\n"
                    "name) in the written model, so diagnostics and\n"
                    "--explain of it name the ONNX nodes"));
    b.flag("help", help, true, cl::desc("print this help"));
    b.alias("h", "help");
    b.flag("version", version, true, cl::desc("print the versions"));
  }
};

const char kOverview[] =
    "usage: mix-import-onnx MODEL.onnx -o MODEL.mlir [options]\n"
    "\n"
    "Imports an ONNX model (any opset from 7 to 17) into the mix dialect:\n"
    "module paths of node names become nested mix.blocks, a precision plan\n"
    "becomes block, layer and property precisions (docs/onnx.md).\n"
    "Exit codes: 0 success, 2 bad input or usage (nothing written).\n"
    "\n"
    "Options ('--name=VALUE' or '--name VALUE'):\n";

llvm::Expected<ImportOptions>
parseCommandLine(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out) {
  ImportOptions options;
  std::vector<std::string> models;
  OptionsBinder binder;
  options.bindOptions(binder);
  binder.positional("MODEL.onnx", "the ONNX model", models);
  if (llvm::Error error = binder.parse(args))
    return std::move(error);
  if (options.help)
    binder.printHelp(out, kOverview);
  if (options.help || options.version)
    return options;
  if (models.size() != 1)
    return llvm::createStringError(
        models.empty() ? "no model given" : "more than one model given");
  options.modelPath = models[0];
  if (binder.occurrences("o") == 0)
    return llvm::createStringError("-o is required");
  if (binder.occurrences("batch") && options.batch < 1)
    return llvm::createStringError("--batch must be at least 1");
  if (options.inlineLimit < 0)
    return llvm::createStringError("--inline-limit must not be negative");
  return options;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "mix-import-onnx: error: " << message << "\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mix::installCrashHandlers("mix-import-onnx");
  llvm::Expected<ImportOptions> options = parseCommandLine(
      llvm::ArrayRef<const char *>(argv + 1, argc - 1), llvm::outs());
  if (!options) {
    llvm::errs() << "mix-import-onnx: error: "
                 << llvm::toString(options.takeError())
                 << "\nrun 'mix-import-onnx --help' for usage\n";
    return 2;
  }
  if (options->help)
    return 0;
  if (options->version) {
    printToolVersion(llvm::outs());
    return 0;
  }

  MLIRContext context;
  loadMixDialects(context);
  std::optional<PrecisionPlan> plan;
  if (!options->planPath.empty()) {
    auto loaded = loadPrecisionPlan(options->planPath, context);
    if (!loaded)
      return fail(llvm::toString(loaded.takeError()));
    plan = std::move(*loaded);
  }
  OnnxImportOptions importOptions;
  importOptions.inlineAll = options->weightsPath.empty();
  importOptions.inlineLimitBytes = options->inlineLimit;
  if (options->batch > 0)
    importOptions.batch = options->batch;
  importOptions.plan = plan ? &*plan : nullptr;
  auto imported = importOnnxFile(options->modelPath, context, importOptions);
  if (!imported)
    return fail(llvm::toString(imported.takeError()));
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (options->nodeLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  imported->module->print(os, flags);
  // All or nothing: the model and its weights are committed together.
  OutputFiles outputs;
  if (!options->weightsPath.empty()) {
    // Written from the imported model's memory (it stays alive until the
    // commit), not assembled into one string: no second copy of the
    // weights.
    llvm::Expected<io::SafetensorsPieces> weights =
        io::layOutSafetensors(options->weightsPath, imported->weights);
    if (!weights)
      return fail(llvm::toString(weights.takeError()));
    outputs.add(options->weightsPath, std::move(weights->header),
                std::move(weights->data));
  }
  if (options->outputPath == "-") {
    if (llvm::Error error = outputs.commit())
      return fail(llvm::toString(std::move(error)));
    llvm::outs() << text;
    return 0;
  }
  outputs.add(options->outputPath, std::move(text));
  if (llvm::Error error = outputs.commit())
    return fail(llvm::toString(std::move(error)));
  return 0;
}
