//===- mix-calibrate.cpp - record int8 activation ranges ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Runs sample inputs through a model (reference interpreter) and writes the
// calibration file that `mixc --calibration` reads: per int8 layer, the
// range of its activation input (docs/quantization.md, docs/formats.md).
//
//   mix-calibrate model.mlir --samples s.safetensors [--weights w.safetensors]
//                 [--entry NAME] [--method minmax|percentile]
//                 [--percentile 99.99] -o calibration.json
//
//===----------------------------------------------------------------------===//

#include "compiler/Calibrate.h"
#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "compiler/Pipeline.h"
#include "compiler/Samples.h"
#include "compiler/Weights.h"
#include "support/CrashHandler.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mix;

namespace cl = llvm::cl;

namespace {

/// mix-calibrate's command line.
struct CalibrateOptions {
  std::string modelPath;
  std::string samplesPath;
  std::string weightsPath;
  std::string entry;
  io::CalibrationMethod method = io::CalibrationMethod::MinMax;
  double percentile = 99.99;
  std::string outputPath;
  bool help = false, version = false;

  void bindOptions(OptionsBinder &b) {
    b.opt("samples", samplesPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("safetensors file with input0, input1, ... ([S, ...]\n"
                   "for S samples)"));
    b.opt("weights", weightsPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("safetensors file with external weights"));
    b.opt("entry", entry, {"a network name"}, cl::value_desc("NAME"),
          cl::desc("network to calibrate (default: the only one)"));
    OptionText methodText;
    methodText.badValue = [](llvm::StringRef v) {
      return ("--method must be 'minmax' or 'percentile', got '" + v + "'")
          .str();
    };
    b.opt("method", method, methodText, cl::value_desc("METHOD"),
          cl::desc("how a range is taken from the samples"),
          cl::values(clEnumValN(io::CalibrationMethod::MinMax, "minmax",
                                "minimum and maximum (default)"),
                     clEnumValN(io::CalibrationMethod::Percentile, "percentile",
                                "--percentile of |x|")));
    b.opt("percentile", percentile, {}, cl::value_desc("P"),
          cl::desc("percentile in (50, 100] (default: 99.99)"));
    b.opt("o", outputPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("calibration file to write"));
    b.flag("help", help, true, cl::desc("print this help"));
    b.alias("h", "help");
    b.flag("version", version, true, cl::desc("print the versions"));
  }
};

const char kOverview[] =
    "usage: mix-calibrate MODEL.mlir --samples FILE -o FILE [options]\n"
    "\n"
    "Runs sample inputs through a model (reference interpreter) and writes\n"
    "the int8 activation ranges that `mixc --calibration` reads.\n"
    "Exit codes: 0 success, 1 error, 2 bad usage.\n"
    "\n"
    "Options ('--name=VALUE' or '--name VALUE'):\n";

/// Parses the command line; with --help, prints it to `out`.
llvm::Expected<CalibrateOptions>
parseCommandLine(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out) {
  CalibrateOptions options;
  std::vector<std::string> models;
  OptionsBinder binder;
  options.bindOptions(binder);
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
  for (llvm::StringRef required : {"samples", "o"})
    if (binder.occurrences(required) == 0)
      return llvm::createStringError(spellOption(required) + " is required");
  return options;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "mix-calibrate: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // No input may kill the tool by a signal: one error line, exit 2.
  mix::installCrashHandlers("mix-calibrate");
  llvm::Expected<CalibrateOptions> options = parseCommandLine(
      llvm::ArrayRef<const char *>(argv + 1, argc - 1), llvm::outs());
  if (!options) {
    llvm::errs() << "mix-calibrate: error: "
                 << llvm::toString(options.takeError())
                 << "\nrun 'mix-calibrate --help' for usage\n";
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
  auto module =
      loadModelWithWeights(options->modelPath, options->weightsPath, context);
  if (!module)
    return fail(llvm::toString(module.takeError()));
  if (llvm::Error err = requireInlineWeights(**module))
    return fail(llvm::toString(std::move(err)));
  auto network = findNetwork(**module, options->entry);
  if (!network)
    return fail(llvm::toString(network.takeError()));
  llvm::Expected<io::SafetensorsFile> samplesFile =
      io::SafetensorsFile::open(options->samplesPath);
  if (!samplesFile)
    return fail(llvm::toString(samplesFile.takeError()));
  auto samples = loadSamples(*network, *samplesFile);
  if (!samples)
    return fail(llvm::toString(samples.takeError()));
  auto table =
      calibrate(*network, *samples, {}, options->method, options->percentile);
  if (!table)
    return fail(llvm::toString(table.takeError()));
  if (table->ranges.empty())
    return fail("network @" + network->getSymName() +
                " has no int8 layer to calibrate");
  if (llvm::Error error = io::writeCalibration(options->outputPath, *table))
    return fail(llvm::toString(std::move(error)));
  llvm::outs() << "mix-calibrate: " << table->ranges.size() << " range(s) from "
               << samples->size() << " sample(s) -> " << options->outputPath
               << "\n";
  return 0;
}
