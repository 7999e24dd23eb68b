//===- AccuracyTest.cpp - accuracy report of the bundled examples ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The accuracy of each example's mixed-precision build (its blocks' f16,
// bf16 and int8 precisions as written) against the f64 reference of the
// same weights (which the all-f32 build matches to 1e-5, see
// ExecutionTest.cpp): per layer SQNR and max abs error, over samples
// generated here. The int8 example is calibrated (MinMax) on a separate set
// of generated samples first, so its activation scales are static.
//
// The tables are printed (ctest -V) and written to
// accuracy-<example>.txt in the working directory; docs/quantization.md
// shows them.
//
//===----------------------------------------------------------------------===//

#include "JitUtil.h"

#include "compiler/Calibrate.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

double noise(uint64_t &state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return double((state >> 11) & 0xFFFFF) / double(0x100000) - 0.5;
}

std::vector<Sample> resnetSamples(int count, uint64_t seed) {
  std::vector<Sample> samples;
  for (int s = 0; s < count; ++s) {
    RefTensor image{{2, 3, 16, 16}, {}};
    for (int64_t i = 0; i < image.numElements(); ++i)
      image.data.push_back(
          double(float(std::sin(0.37 * double(i) + s) + 0.3 * noise(seed))));
    RefTensor labels{{2}, {double(s % 10), double((s + 3) % 10)}};
    samples.push_back({image, labels});
  }
  return samples;
}

std::vector<Sample> transformerSamples(int count, uint64_t seed) {
  std::vector<Sample> samples;
  for (int s = 0; s < count; ++s) {
    RefTensor tokens{{2, 8}, {}}, targets{{16}, {}};
    for (int i = 0; i < 16; ++i) {
      tokens.data.push_back(double(int64_t((noise(seed) + 0.5) * 50) % 50));
      targets.data.push_back(double(int64_t((noise(seed) + 0.5) * 50) % 50));
    }
    samples.push_back({tokens, targets});
  }
  return samples;
}

std::vector<Sample> edgeSamples(int count, uint64_t seed) {
  std::vector<Sample> samples;
  for (int s = 0; s < count; ++s) {
    RefTensor image{{1, 1, 28, 28}, {}};
    for (int y = 0; y < 28; ++y)
      for (int x = 0; x < 28; ++x) {
        // A blob at a sample-dependent place, plus sensor noise: [0, 1].
        double cx = 8 + 3 * (s % 5), cy = 10 + 2 * (s % 7);
        double d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
        double v = std::exp(-d2 / 30.0) + 0.1 * (noise(seed) + 0.5);
        image.data.push_back(double(float(std::min(v, 1.0))));
      }
    samples.push_back({image});
  }
  return samples;
}

struct Report {
  std::vector<LayerAccuracy> layers;
  double outputSqnr = 0;
};

/// Lowers a copy of `source` (weights inline) to the `quantize` phase and
/// compares it with the reference, layer by layer.
Report accuracy(llvm::StringRef name, llvm::StringRef source,
                const std::vector<Sample> &samples,
                const std::vector<Sample> *calibrationSamples) {
  Jit jit;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context, name);
  REQUIRE(module);
  WeightMap weights = makeWeights(*module);
  inlineWeights(*module, weights);
  OwningOpRef<ModuleOp> lowered = module->clone();
  MixPipelineOptions options;
  options.stopAfter = MixPhase::quantize;
  llvm::SmallString<64> calibrationPath;
  if (calibrationSamples) {
    auto table =
        calibrate(*module->getOps<NetworkOp>().begin(), *calibrationSamples, {},
                  io::CalibrationMethod::MinMax);
    if (!table)
      FAIL(llvm::toString(table.takeError()));
    REQUIRE(!llvm::sys::fs::createTemporaryFile("calibration", "json",
                                                calibrationPath));
    if (llvm::Error error =
            io::writeCalibration(calibrationPath.str().str(), *table))
      FAIL(llvm::toString(std::move(error)));
    options.calibrationPath = calibrationPath.str().str();
  }
  PassManager pm(&jit.context);
  REQUIRE(succeeded(buildMixPipeline(pm, options)));
  bool ok = succeeded(pm.run(*lowered));
  if (!calibrationPath.empty())
    llvm::sys::fs::remove(calibrationPath);
  REQUIRE(ok);
  auto layers =
      compareLayers(*module->getOps<NetworkOp>().begin(),
                    *lowered->getOps<NetworkOp>().begin(), samples, {});
  if (!layers)
    FAIL(llvm::toString(layers.takeError()));
  std::string table;
  llvm::raw_string_ostream os(table);
  os << name << ": " << samples.size() << " samples\n";
  printAccuracyTable(os, *layers);
  std::cout << table << "\n";
  std::error_code ec;
  llvm::raw_fd_ostream file(("accuracy-" + name + ".txt").str(), ec);
  if (!ec)
    file << table;
  REQUIRE(!layers->empty());
  Report report;
  report.layers = std::move(*layers);
  return report;
}

const LayerAccuracy *find(const Report &r, llvm::StringRef layer) {
  for (const LayerAccuracy &a : r.layers)
    if (a.layer == layer)
      return &a;
  FAIL("no layer " << layer.str());
  return nullptr;
}
} // namespace

TEST_CASE("accuracy of the edge int8 example (calibrated)", "[accuracy]") {
  std::vector<Sample> calibration = edgeSamples(8, 101);
  std::vector<Sample> samples = edgeSamples(6, 202);
  Report r = accuracy("edge_int8", readExample("edge_int8.mlir"), samples,
                      &calibration);
  // Symmetric int8 of both operands: each quantization adds uniform noise
  // of step^2/12 with step = range/127, i.e. about 6 dB per bit minus the
  // crest factor: ~40-50 dB per quantized operand for these activations,
  // and errors accumulate through 4 int8 layers (measured: 52.9 dB at the
  // first conv, 34.7 dB at the softmax; docs/quantization.md). Require
  // 30 dB everywhere and probabilities within 0.05 (measured 0.013).
  for (const LayerAccuracy &a : r.layers) {
    INFO(a.layer << " " << a.precision << " " << a.sqnrDb);
    CHECK(a.sqnrDb >= 30.0);
  }
  const LayerAccuracy *probs = find(r, "edge/classifier/softmax#0");
  CHECK(probs->maxAbsError <= 0.05);
}

TEST_CASE("accuracy of the ResNet example (f16 stages)", "[accuracy]") {
  Report r = accuracy("resnet", readExample("resnet.mlir"), resnetSamples(3, 7),
                      nullptr);
  // f16 keeps 11 significant bits: one RNE rounding has an SQNR of about
  // 6.02 * 11 + 1.76 = 68 dB; roundings of operands and results through
  // the stages add up (measured: 68.2 dB worst). Require 60 dB.
  for (const LayerAccuracy &a : r.layers) {
    INFO(a.layer << " " << a.precision << " " << a.sqnrDb);
    CHECK(a.sqnrDb >= 60.0);
  }
}

TEST_CASE("accuracy of the transformer example (f16 layers)", "[accuracy]") {
  Report r = accuracy("transformer", readExample("transformer.mlir"),
                      transformerSamples(3, 9), nullptr);
  // f16 blocks (attention scores and softmax at f32 accumulator
  // precision): about 68 dB per rounding as above, measured 66.8 dB worst
  // (attention). Require 60 dB.
  for (const LayerAccuracy &a : r.layers) {
    INFO(a.layer << " " << a.precision << " " << a.sqnrDb);
    CHECK(a.sqnrDb >= 60.0);
  }
}
