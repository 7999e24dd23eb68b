//===- Calibrate.cpp - calibration and accuracy of quantized models -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Calibrate.h"
#include "dialect/MixAttrNames.h"
#include "passes/LinalgBuilders.h"
#include "passes/Resolve.h"
#include "support/Error.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mix;

namespace {
/// Operand names of the activation inputs of an int8 layer, or empty.
SmallVector<std::pair<unsigned, StringRef>> int8Inputs(Operation *op) {
  auto layer = dyn_cast<LayerOpInterface>(op);
  if (!layer || !layer.isInt8Capable())
    return {};
  FailureOr<LayerResolution> r = resolveLayer(layer);
  if (failed(r) || !r->activations.precision.isInt8())
    return {};
  if (isa<MatmulOp>(op))
    return {{0, "lhs"}, {1, "rhs"}};
  if (isa<DenseOp, Conv2DOp, AttentionOp, LstmOp, GruOp>(op))
    return {{0, "input"}};
  return {};
}
} // namespace

llvm::Expected<io::CalibrationTable>
mix::calibrate(NetworkOp network, ArrayRef<Sample> samples,
               const WeightMap &weights, io::CalibrationMethod method,
               double percentile) {
  llvm::Expected<Calibrator> calibrator =
      Calibrator::create(network, weights, method, percentile);
  if (!calibrator)
    return calibrator.takeError();
  for (unsigned pass = 0; pass < calibrator->passes(); ++pass) {
    if (pass > 0)
      calibrator->nextPass();
    if (llvm::Error error = calibrator->add(samples))
      return std::move(error);
  }
  return calibrator->finish();
}

Calibrator::Calibrator(NetworkOp network, const WeightMap &weights,
                       io::RangeCollector collector)
    : network(network), weights(&weights), collector(std::move(collector)) {
  network.walk([&](Operation *op) {
    if (!int8Inputs(op).empty())
      paths[op] = getLayerPath(op);
  });
}

llvm::Expected<Calibrator> Calibrator::create(NetworkOp network,
                                              const WeightMap &weights,
                                              io::CalibrationMethod method,
                                              double percentile) {
  llvm::Expected<io::RangeCollector> collector =
      io::RangeCollector::create(method, percentile);
  if (!collector)
    return collector.takeError();
  return Calibrator(network, weights, std::move(*collector));
}

void Calibrator::nextPass() {
  ++pass;
  collector.startSecondPass();
}

llvm::Error Calibrator::add(ArrayRef<Sample> batch) {
  // The first error of collector.add, which the interpreter callback
  // cannot return.
  std::optional<std::string> failure;
  InterpreterOptions options;
  options.beforeLayer = [&](Operation *op, ArrayRef<const RefTensor *> in) {
    auto it = paths.find(op);
    if (it == paths.end() || failure)
      return;
    for (auto [index, name] : int8Inputs(op)) {
      if (llvm::Error error =
              collector.add(it->second + "/" + name.str(), in[index]->data)) {
        failure = llvm::toString(std::move(error));
        return;
      }
    }
  };
  for (auto [i, sample] : llvm::enumerate(batch)) {
    auto out = interpret(network, sample, *weights, options);
    if (!out)
      return makeError("sample " + llvm::Twine(i) + ": " +
                       llvm::toString(out.takeError()));
    if (failure)
      return makeError("sample " + llvm::Twine(i) + ": " + *failure);
  }
  if (pass == 0)
    samples += static_cast<int64_t>(batch.size());
  return llvm::Error::success();
}

io::CalibrationTable Calibrator::finish() const {
  io::CalibrationTable table = collector.finish();
  table.samples = samples;
  return table;
}

void mix::ErrorSums::add(double got, double want) {
  ++count;
  bool agree = got == want || (std::isnan(got) && std::isnan(want));
  if (!agree && (!std::isfinite(got) || !std::isfinite(want))) {
    ++mismatches;
    maxAbs = std::numeric_limits<double>::infinity();
    return;
  }
  if (!std::isfinite(want))
    return; // the same NaN or infinity: no error, no finite signal
  // Every finite reference value is signal, exact ones included.
  double e = got - want;
  signal += want * want;
  noise += e * e;
  maxAbs = std::max(maxAbs, std::fabs(e));
}

double mix::ErrorSums::sqnrDb() const {
  if (mismatches != 0)
    return -std::numeric_limits<double>::infinity();
  if (noise == 0)
    return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

llvm::Expected<std::vector<LayerAccuracy>>
mix::compareLayers(NetworkOp reference, NetworkOp lowered,
                   ArrayRef<Sample> samples, const WeightMap &weights) {
  std::vector<LayerAccuracy> layers;
  llvm::StringMap<size_t> byLocation;
  reference.walk([&](LayerOpInterface layer) {
    std::string where = lowering::formatSourceLocation(layer->getLoc());
    if (where.empty() || byLocation.count(where))
      return;
    LayerAccuracy a;
    a.layer = getLayerPath(layer);
    a.location = where;
    if (FailureOr<LayerResolution> r = resolveLayer(layer); succeeded(r))
      a.precision = r->activations.precision.str();
    byLocation[where] = layers.size();
    layers.push_back(a);
  });
  std::vector<ErrorSums> sums(layers.size());
  for (auto [i, sample] : llvm::enumerate(samples)) {
    // Reference outputs of this sample, by layer.
    std::vector<std::vector<double>> refOut(layers.size());
    InterpreterOptions refOptions;
    refOptions.afterOp = [&](Operation *op, const RefTensor &result) {
      // A layer of several results is compared by its first (lstm, gru: the
      // sequence y), when something reads it.
      if (!isa<LayerOpInterface>(op) || op->getResult(0).use_empty())
        return;
      auto it = byLocation.find(lowering::formatSourceLocation(op->getLoc()));
      if (it != byLocation.end())
        refOut[it->second] = result.data;
    };
    if (auto out = interpret(reference, sample, weights, refOptions); !out)
      return makeError("sample " + llvm::Twine(i) +
                       " (reference): " + llvm::toString(out.takeError()));
    // The lowered value of each layer: the last op at the layer's position
    // with the layer's size (a lowered layer may be several ops, e.g. an
    // int8 attention's four projections: only the last is its output).
    std::vector<std::vector<double>> lowOut(layers.size());
    InterpreterOptions lowOptions;
    lowOptions.afterOp = [&](Operation *op, const RefTensor &result) {
      if (!isa<LayerOpInterface, QDenseOp, QConv2DOp, QMatmulOp>(op))
        return;
      // A conv2d with a batch_norm folded into it computes that
      // batch_norm's output; the conv2d itself has no counterpart.
      Location at = op->getLoc();
      if (auto folded = op->getAttrOfType<LocationAttr>(attr::kFoldedBatchNorm))
        at = folded;
      auto it = byLocation.find(lowering::formatSourceLocation(at));
      if (it == byLocation.end() ||
          refOut[it->second].size() != result.data.size())
        return;
      lowOut[it->second] = result.data;
    };
    if (auto out = interpret(lowered, sample, weights, lowOptions); !out)
      return makeError("sample " + llvm::Twine(i) +
                       " (lowered): " + llvm::toString(out.takeError()));
    for (auto [ref, low, s] : llvm::zip_equal(refOut, lowOut, sums)) {
      if (low.empty())
        continue;
      for (size_t k = 0; k < ref.size(); ++k)
        s.add(low[k], ref[k]);
    }
  }
  std::vector<LayerAccuracy> result;
  for (auto [a, s] : llvm::zip_equal(layers, sums)) {
    if (s.count == 0)
      continue; // reshapes and the like: no lowered counterpart observed
    a.values = s.count;
    a.mismatches = s.mismatches;
    a.maxAbsError = s.maxAbs;
    a.sqnrDb = s.sqnrDb();
    result.push_back(a);
  }
  return result;
}

void mix::printAccuracyTable(llvm::raw_ostream &os,
                             ArrayRef<LayerAccuracy> layers) {
  size_t width = 5;
  for (const LayerAccuracy &a : layers)
    width = std::max(width, a.layer.size());
  os << llvm::left_justify("layer", width) << "  "
     << llvm::left_justify("precision", 22) << "  "
     << llvm::right_justify("SQNR dB", 8) << "  "
     << llvm::right_justify("max abs err", 11) << "\n";
  for (const LayerAccuracy &a : layers) {
    os << llvm::left_justify(a.layer, width) << "  "
       << llvm::left_justify(a.precision, 22) << "  ";
    if (a.sqnrDb > 0 && std::isinf(a.sqnrDb))
      os << llvm::right_justify("exact", 8);
    else
      os << llvm::format("%8.1f", a.sqnrDb);
    os << "  " << llvm::format("%11.3e", a.maxAbsError);
    if (a.mismatches != 0)
      os << "  (" << a.mismatches << " NaN/inf where the reference differs)";
    os << "\n";
  }
}
