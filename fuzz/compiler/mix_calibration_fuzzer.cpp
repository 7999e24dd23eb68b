//===-- mix_calibration_fuzzer.cpp - libFuzzer target for calibration -----===//
//
// The input is a calibration file (JSON, format "mixc-calibration"),
// written to a memfd path (FuzzSupport.h) and read by
// io::readCalibration. When it reads, every range is looked up (and a
// missing one), and mix-quantize runs on a copy of an int8 model
// (tests/lit/Driver/Inputs/int8.mlir, whose layer names the seeds use) with
// the file as its --calibration, after the phases before it (resolve,
// casts), as mixc --calibration does.
//
// Errors are expected and fine; findings are crashes, sanitizer reports,
// leaks and timeouts, plus one invariant that aborts: a range the table
// lists is found by lookup().
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"
#include "io/Calibration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "FuzzModels.inc"

using namespace mlir;
using mix::fuzz::fuzzContext;
using mix::fuzz::FuzzDialects;
using mix::fuzz::invariantViolated;

namespace {

/// The int8 model after the phases before `quantize`.
ModuleOp getModel() {
  static OwningOpRef<ModuleOp> *model = [] {
    auto *m = new OwningOpRef<ModuleOp>(parseSourceString<ModuleOp>(
        kCalibratedModel, ParserConfig(&fuzzContext(FuzzDialects::pipeline))));
    if (!*m)
      invariantViolated("mix_calibration_fuzzer",
                        "the fixed model does not parse", "int8.mlir");
    mix::MixPipelineOptions options;
    options.stopAfter = mix::MixPhase::casts;
    PassManager pm(&fuzzContext(FuzzDialects::pipeline));
    if (failed(mix::buildMixPipeline(pm, options)) || failed(pm.run(**m)))
      invariantViolated("mix_calibration_fuzzer",
                        "the fixed model does not compile", "int8.mlir");
    return m;
  }();
  return **model;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)getModel();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = mix::fuzz::writeInputFile(data, size);
  llvm::Expected<mix::io::CalibrationTable> table =
      mix::io::readCalibration(path);
  if (!table) {
    llvm::consumeError(table.takeError());
    return 0;
  }
  for (const auto &kv : table->ranges)
    if (llvm::Expected<mix::io::CalibrationRange> range =
            table->lookup(kv.first))
      (void)range->count;
    else
      invariantViolated("mix_calibration_fuzzer", "a listed range is not found",
                        llvm::toString(range.takeError()));
  if (llvm::Expected<mix::io::CalibrationRange> missing =
          table->lookup("\x01 not a tensor name"))
    (void)missing->count;
  else
    llvm::consumeError(missing.takeError());

  // mixc --calibration: the quantize phase reads the file itself.
  OwningOpRef<ModuleOp> model = getModel().clone();
  mix::MixPipelineOptions options;
  options.startAt = mix::MixPhase::quantize;
  options.stopAfter = mix::MixPhase::quantize;
  options.calibrationPath = path;
  options.weightGranularity = (size & 1) ? mix::WeightGranularity::tensor
                                         : mix::WeightGranularity::channel;
  PassManager pm(&fuzzContext(FuzzDialects::pipeline));
  if (failed(mix::buildMixPipeline(pm, options)))
    invariantViolated("mix_calibration_fuzzer", "cannot build the mix pipeline",
                      "");
  (void)pm.run(*model);
  return 0;
}
