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
//   mix-calibrate model.mlir --samples s.safetensors|DIR
//                 [--weights w.safetensors] [--entry NAME]
//                 [--method minmax|percentile|entropy] [--percentile 99.99]
//                 [--progress auto|always|never] -o calibration.json
//
// A folder of samples is read one *.safetensors file at a time, in sorted
// file-name order, once per pass of the method (entropy takes two).
//
//===----------------------------------------------------------------------===//

#include "compiler/Calibrate.h"
#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "compiler/Pipeline.h"
#include "compiler/Progress.h"
#include "compiler/Samples.h"
#include "compiler/Weights.h"
#include "support/CrashHandler.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

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
  ProgressMode progress = ProgressMode::automatic;
  std::string outputPath;
  bool help = false, version = false;

  void bindOptions(OptionsBinder &b) {
    b.opt("samples", samplesPath, {"a file or folder name"},
          cl::value_desc("FILE|DIR"),
          cl::desc("safetensors file with input0, input1, ... ([S, ...]\n"
                   "for S samples), or a folder of such *.safetensors\n"
                   "files, read one at a time in file-name order"));
    b.opt("weights", weightsPath, {"a file name"}, cl::value_desc("FILE"),
          cl::desc("safetensors file with external weights"));
    b.opt("entry", entry, {"a network name"}, cl::value_desc("NAME"),
          cl::desc("network to calibrate (default: the only one)"));
    OptionText methodText;
    methodText.badValue = [](llvm::StringRef v) {
      return ("--method must be 'minmax', 'percentile' or 'entropy', got '" +
              v + "'")
          .str();
    };
    b.opt("method", method, methodText, cl::value_desc("METHOD"),
          cl::desc("how a range is taken from the samples"),
          cl::values(clEnumValN(io::CalibrationMethod::MinMax, "minmax",
                                "minimum and maximum (default)"),
                     clEnumValN(io::CalibrationMethod::Percentile, "percentile",
                                "--percentile of |x|"),
                     clEnumValN(io::CalibrationMethod::Entropy, "entropy",
                                "the threshold of |x| of least KL divergence\n"
                                "(TensorRT's; reads the samples twice)")));
    b.opt("percentile", percentile, {}, cl::value_desc("P"),
          cl::desc("percentile in (50, 100] (default: 99.99)"));
    b.opt("progress", progress, {}, cl::value_desc("WHEN"),
          cl::desc("say how many samples are done"),
          cl::values(clEnumValN(ProgressMode::automatic, "auto",
                                "a status line on a terminal after 2 s "
                                "(default)"),
                     clEnumValN(ProgressMode::always, "always",
                                "a line per file and pass"),
                     clEnumValN(ProgressMode::never, "never", "nothing")));
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
    "--samples DIR reads every *.safetensors file of the folder, one at a\n"
    "time.\n"
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
  // Not a file named "-".
  if (options.outputPath == "-")
    return llvm::createStringError(
        "-o '-': mix-calibrate writes a file, not standard output; give a "
        "file name such as 'calibration.json'");
  return options;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "mix-calibrate: error: " << message << "\n";
  return 1;
}

/// The *.safetensors files of the folder `dir`, sorted by name (byte
/// order). Errors: an unreadable folder, no such file.
llvm::Expected<std::vector<std::string>> listSampleFiles(llvm::StringRef dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".safetensors")
      continue;
    // Follows symbolic links; subfolders are not read.
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> status = it->status();
    if (status && status->type() == llvm::sys::fs::file_type::directory_file)
      continue;
    files.push_back(it->path());
  }
  if (ec)
    return llvm::createStringError("cannot read the samples folder '" + dir +
                                   "': " + ec.message());
  if (files.empty())
    return llvm::createStringError("the samples folder '" + dir +
                                   "' has no *.safetensors file");
  std::sort(files.begin(), files.end());
  return files;
}

/// Calibrates `network` over the samples of `files`, one file at a time,
/// once per pass of the method. Errors of a file of a folder start with
/// its name.
llvm::Expected<io::CalibrationTable>
calibrateFiles(NetworkOp network, llvm::ArrayRef<std::string> files,
               bool folder, const CalibrateOptions &options) {
  const WeightMap noWeights; // the weights are bound in the module
  llvm::Expected<Calibrator> calibrator = Calibrator::create(
      network, noWeights, options.method, options.percentile);
  if (!calibrator)
    return calibrator.takeError();
  Progress progress(options.progress, llvm::errs(), llvm::errs().is_displayed(),
                    std::chrono::seconds(2), "mix-calibrate");
  const unsigned passes = calibrator->passes();
  for (unsigned pass = 0; pass < passes; ++pass) {
    if (pass > 0)
      calibrator->nextPass();
    progress.beginPhase(
        passes == 1
            ? std::string("calibrating")
            : llvm::formatv("calibrating (pass {0} of {1})", pass + 1, passes)
                  .str(),
        0, 0);
    int64_t done = 0;
    for (auto [i, path] : llvm::enumerate(files)) {
      auto inFile = [&](llvm::Error error) -> llvm::Error {
        if (!folder)
          return error;
        return llvm::createStringError(path + ": " +
                                       llvm::toString(std::move(error)));
      };
      // The samples of one file at a time: freed before the next is read.
      llvm::Expected<io::SafetensorsFile> file =
          io::SafetensorsFile::open(path);
      if (!file)
        return file.takeError(); // names the file
      llvm::Expected<std::vector<Sample>> samples = loadSamples(network, *file);
      if (!samples)
        return samples.takeError(); // names the file and the tensor
      if (llvm::Error error = calibrator->add(*samples))
        return inFile(std::move(error));
      done += static_cast<int64_t>(samples->size());
      progress.setStep(
          llvm::formatv("{0}/{1} files, {2} samples", i + 1, files.size(), done)
              .str());
    }
  }
  return calibrator->finish();
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
  const bool folder = llvm::sys::fs::is_directory(options->samplesPath);
  std::vector<std::string> files = {options->samplesPath};
  if (folder) {
    llvm::Expected<std::vector<std::string>> listed =
        listSampleFiles(options->samplesPath);
    if (!listed)
      return fail(llvm::toString(listed.takeError()));
    files = std::move(*listed);
  }
  auto table = calibrateFiles(*network, files, folder, *options);
  if (!table)
    return fail(llvm::toString(table.takeError()));
  if (table->ranges.empty())
    return fail("network @" + network->getSymName() +
                " has no int8 layer to calibrate");
  if (llvm::Error error = io::writeCalibration(options->outputPath, *table))
    return fail(llvm::toString(std::move(error)));
  llvm::outs() << "mix-calibrate: " << table->ranges.size() << " range(s) from "
               << table->samples << " sample(s)";
  if (folder)
    llvm::outs() << " in " << files.size() << " file(s)";
  llvm::outs() << " -> " << options->outputPath << "\n";
  return 0;
}
