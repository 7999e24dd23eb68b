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
#include "compiler/Pipeline.h"
#include "compiler/Samples.h"
#include "compiler/Weights.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mix;

namespace cl = llvm::cl;

static cl::OptionCategory category("mix-run options");
static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> inputsPath(
    "inputs", cl::Required,
    cl::desc("safetensors file with input0, input1, ... (one sample, or S "
             "samples along an extra leading dimension)"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    weightsPath("weights", cl::desc("safetensors file with external weights"),
                cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> entry("entry", cl::desc("network to run"),
                                  cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string>
    lowerTo("lower-to",
            cl::desc("lower before running: casts or quantize (default: "
                     "none, the ideal f64 model)"),
            cl::value_desc("phase"), cl::cat(category));
static cl::opt<std::string>
    calibration("calibration",
                cl::desc("calibration file for static int8 scales"),
                cl::value_desc("file"), cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "mix-run: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "mix-run: outputs of a mix model (reference interpreter)\n");
  MLIRContext context;
  DialectRegistry registry;
  registerMixPipelineDependencies(registry);
  context.appendDialectRegistry(registry);
  loadMixDialects(context);
  auto module = loadModelWithWeights(modelPath, weightsPath, context);
  if (!module)
    return fail(llvm::toString(module.takeError()));
  if (!lowerTo.empty()) {
    std::optional<MixPhase> phase = parsePhase(lowerTo);
    if (!phase || (*phase != MixPhase::casts && *phase != MixPhase::quantize))
      return fail("--lower-to must be 'casts' or 'quantize', got '" + lowerTo +
                  "'");
    if (llvm::Error err = requireInlineWeights(**module))
      return fail(llvm::toString(std::move(err)));
    MixPipelineOptions options;
    options.stopAfter = *phase;
    options.verifyPolicy = false;
    options.calibrationPath = calibration;
    PassManager pm(&context);
    if (failed(buildMixPipeline(pm, options)))
      return fail("cannot build the pipeline");
    FirstErrorCollector errors(context);
    if (failed(pm.run(**module)))
      return fail(errors.hasError() ? errors.message() : "lowering failed");
  }
  auto network = findNetwork(**module, entry);
  if (!network)
    return fail(llvm::toString(network.takeError()));
  llvm::Expected<io::SafetensorsFile> inputs =
      io::SafetensorsFile::open(inputsPath);
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
