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
#include "compiler/Pipeline.h"
#include "compiler/Samples.h"
#include "compiler/Weights.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mix;

namespace cl = llvm::cl;

static cl::OptionCategory category("mix-calibrate options");
static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> samplesPath(
    "samples", cl::Required,
    cl::desc("safetensors file with input0, input1, ... ([S, ...] for S "
             "samples)"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    weightsPath("weights", cl::desc("safetensors file with external weights"),
                cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> entry("entry", cl::desc("network to calibrate"),
                                  cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string> method("method",
                                   cl::desc("minmax (default) or percentile"),
                                   cl::init("minmax"), cl::cat(category));
static cl::opt<double> percentile("percentile",
                                  cl::desc("percentile in (50, 100]"),
                                  cl::init(99.99), cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::Required,
                                       cl::desc("calibration file to write"),
                                       cl::value_desc("file"),
                                       cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "mix-calibrate: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "mix-calibrate: int8 activation ranges\n");
  io::CalibrationMethod m;
  if (method == "minmax")
    m = io::CalibrationMethod::MinMax;
  else if (method == "percentile")
    m = io::CalibrationMethod::Percentile;
  else
    return fail("--method must be 'minmax' or 'percentile', got '" + method +
                "'");
  MLIRContext context;
  loadMixDialects(context);
  auto module = loadModelWithWeights(modelPath, weightsPath, context);
  if (!module)
    return fail(llvm::toString(module.takeError()));
  if (llvm::Error err = requireInlineWeights(**module))
    return fail(llvm::toString(std::move(err)));
  auto network = findNetwork(**module, entry);
  if (!network)
    return fail(llvm::toString(network.takeError()));
  llvm::Expected<io::SafetensorsFile> samplesFile =
      io::SafetensorsFile::open(samplesPath);
  if (!samplesFile)
    return fail(llvm::toString(samplesFile.takeError()));
  auto samples = loadSamples(*network, *samplesFile);
  if (!samples)
    return fail(llvm::toString(samples.takeError()));
  auto table = calibrate(*network, *samples, {}, m, percentile);
  if (!table)
    return fail(llvm::toString(table.takeError()));
  if (table->ranges.empty())
    return fail("network @" + network->getSymName() +
                " has no int8 layer to calibrate");
  if (llvm::Error error = io::writeCalibration(outputPath, *table))
    return fail(llvm::toString(std::move(error)));
  llvm::outs() << "mix-calibrate: " << table->ranges.size()
               << " range(s) from " << samples->size() << " sample(s) -> "
               << outputPath << "\n";
  return 0;
}
