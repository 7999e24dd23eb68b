//===- mix-run.cpp - run a model with the reference interpreter -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Prints the outputs of a network for the inputs in a safetensors file, as
// computed by mixc's f64 reference interpreter: what an app embedding the
// compiled model should print, up to the documented precision. With
// --lower-to=quantize the model is first lowered through mix-insert-casts and
// mix-quantize, whose casts and int8 arithmetic the interpreter reproduces
// exactly.
//
//   mix-run model.mlir --inputs in.safetensors [--weights w.safetensors]
//           [--entry NAME] [--lower-to=casts|quantize] [--calibration c.json]
//
//===----------------------------------------------------------------------===//

#include "compiler/Interpreter.h"
#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "compiler/Pipeline.h"
#include "compiler/Samples.h"
#include "compiler/Weights.h"
#include "mlir/Pass/PassManager.h"
#include "support/CrashHandler.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mix;

namespace cl = llvm::cl;

namespace {

/// mix-run's command line.
struct RunOptions {
  std::string modelPath;
  std::string inputsPath;
  std::string weightsPath;
  std::string entry;
  /// Lower before running (casts or quantize); none: the ideal f64 model.
  std::optional<MixPhase> lowerTo;
  std::string calibrationPath;
  bool help = false, version = false;

  void bindOptions(OptionsBinder &b, MixPhase &phase) {
    b.opt("inputs", inputsPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("safetensors file with input0, input1, ... (one sample,\n"
                   "or S samples along an extra leading dimension)"));
    b.opt("weights", weightsPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("safetensors file with external weights"));
    b.opt("entry", entry, {"a network name"}, cl::value_desc("NAME"),
          cl::desc("network to run (default: the only one)"));
    OptionText lowerText;
    lowerText.badValue = [](llvm::StringRef v) {
      return ("--lower-to must be 'casts' or 'quantize', got '" + v + "'")
          .str();
    };
    b.opt("lower-to", phase, lowerText, cl::value_desc("PHASE"),
          cl::desc("lower before running: casts or quantize (default:\n"
                   "none, the ideal f64 model)"),
          getMixPhaseValues());
    b.opt("calibration", calibrationPath, {"a file name"},
          cl::value_desc("FILE"),
          cl::desc("calibration file for static int8 scales"));
    b.flag("help", help, true, cl::desc("print this help"));
    b.alias("h", "help");
    b.flag("version", version, true, cl::desc("print the versions"));
  }
};

const char kOverview[] =
    "usage: mix-run MODEL.mlir --inputs FILE [options]\n"
    "\n"
    "Prints the outputs of a network for the inputs in a safetensors file, as\n"
    "computed by mixc's f64 reference interpreter.\n"
    "Exit codes: 0 success, 1 error, 2 bad usage.\n"
    "\n"
    "Options ('--name=VALUE' or '--name VALUE'):\n";

/// Parses the command line; with --help, prints it to `out`.
llvm::Expected<RunOptions> parseCommandLine(llvm::ArrayRef<const char *> args,
                                            llvm::raw_ostream &out) {
  RunOptions options;
  MixPhase phase = MixPhase::llvm;
  std::vector<std::string> models;
  OptionsBinder binder;
  options.bindOptions(binder, phase);
  binder.positional("MODEL.mlir", "the model ('-': standard input)", models);
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
  if (binder.occurrences("inputs") == 0)
    return llvm::createStringError("--inputs is required");
  if (binder.occurrences("lower-to")) {
    if (phase != MixPhase::casts && phase != MixPhase::quantize)
      return llvm::createStringError(
          "--lower-to must be 'casts' or 'quantize', got '" +
          getPhaseName(phase) + "'");
    options.lowerTo = phase;
  }
  return options;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "mix-run: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // No input may kill the tool by a signal: one error line, exit 2.
  mix::installCrashHandlers("mix-run");
  llvm::Expected<RunOptions> options = parseCommandLine(
      llvm::ArrayRef<const char *>(argv + 1, argc - 1), llvm::outs());
  if (!options) {
    llvm::errs() << "mix-run: error: " << llvm::toString(options.takeError())
                 << "\nrun 'mix-run --help' for usage\n";
    return 2;
  }
  if (options->help)
    return 0;
  if (options->version) {
    printToolVersion(llvm::outs());
    return 0;
  }

  MLIRContext context;
  DialectRegistry registry;
  registerMixPipelineDependencies(registry);
  context.appendDialectRegistry(registry);
  loadMixDialects(context);
  auto module =
      loadModelWithWeights(options->modelPath, options->weightsPath, context);
  if (!module)
    return fail(llvm::toString(module.takeError()));
  if (options->lowerTo) {
    if (llvm::Error err = requireInlineWeights(**module))
      return fail(llvm::toString(std::move(err)));
    MixPipelineOptions pipeline;
    pipeline.stopAfter = *options->lowerTo;
    pipeline.verifyPolicy = false;
    pipeline.calibrationPath = options->calibrationPath;
    PassManager pm(&context);
    if (failed(buildMixPipeline(pm, pipeline)))
      return fail("cannot build the pipeline");
    FirstErrorCollector errors(context);
    if (failed(pm.run(**module)))
      return fail(errors.hasError() ? errors.message() : "lowering failed");
  }
  auto network = findNetwork(**module, options->entry);
  if (!network)
    return fail(llvm::toString(network.takeError()));
  llvm::Expected<io::SafetensorsFile> inputs =
      io::SafetensorsFile::open(options->inputsPath);
  if (!inputs)
    return fail(llvm::toString(inputs.takeError()));
  auto samples = loadSamples(*network, *inputs);
  if (!samples)
    return fail(llvm::toString(samples.takeError()));
  for (auto [s, sample] : llvm::enumerate(*samples)) {
    auto outputs = interpret(*network, sample, {});
    if (!outputs)
      return fail(llvm::toString(outputs.takeError()));
    for (auto [i, out] : llvm::enumerate(*outputs)) {
      llvm::outs() << "sample " << s << " output " << i << " "
                   << formatShape(out.shape) << ":";
      for (double v : out.data)
        llvm::outs() << " " << llvm::format("%.9g", v);
      llvm::outs() << "\n";
    }
  }
  return 0;
}
