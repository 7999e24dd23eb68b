//===- Validate.cpp - accuracy of a compiled model on a validation set ----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Validate.h"

#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"
#include "compiler/Samples.h"
#include "mixrt/mixrt.h"
#include "support/Error.h"
#include "support/Format.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mix;

namespace {

/// `values` (one sample of `t`) in the C type of `t`.
std::vector<uint8_t> toBuffer(const HeaderTensor &t,
                              const std::vector<double> &values) {
  size_t bytes = elementBytes(t);
  std::vector<uint8_t> data(values.size() * bytes);
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    uint8_t *at = &data[i * bytes];
    const std::string &type = t.mlirType;
    if (type == "f64") {
      std::memcpy(at, &v, 8);
    } else if (type == "f32") {
      float f = static_cast<float>(v);
      std::memcpy(at, &f, 4);
    } else if (type == "f16" || type == "bf16") {
      float f = static_cast<float>(v);
      uint16_t h = type == "f16" ? mixrt_f32_to_f16(f) : mixrt_f32_to_bf16(f);
      std::memcpy(at, &h, 2);
    } else if (bytes == 8) {
      int64_t n = static_cast<int64_t>(v);
      std::memcpy(at, &n, 8);
    } else if (bytes == 4) {
      int32_t n = static_cast<int32_t>(v);
      std::memcpy(at, &n, 4);
    } else if (bytes == 2) {
      int16_t n = static_cast<int16_t>(v);
      std::memcpy(at, &n, 2);
    } else {
      int8_t n = static_cast<int8_t>(v);
      std::memcpy(at, &n, 1);
    }
  }
  return data;
}

/// The buffer of `t` read back as doubles.
std::vector<double> fromBuffer(const HeaderTensor &t,
                               const std::vector<uint8_t> &data) {
  size_t bytes = elementBytes(t);
  std::vector<double> values(data.size() / bytes);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t *at = &data[i * bytes];
    const std::string &type = t.mlirType;
    if (type == "f64") {
      std::memcpy(&values[i], at, 8);
    } else if (type == "f32") {
      float f;
      std::memcpy(&f, at, 4);
      values[i] = f;
    } else if (type == "f16" || type == "bf16") {
      uint16_t h;
      std::memcpy(&h, at, 2);
      values[i] = type == "f16" ? mixrt_f16_to_f32(h) : mixrt_bf16_to_f32(h);
    } else if (bytes == 8) {
      int64_t n;
      std::memcpy(&n, at, 8);
      values[i] = static_cast<double>(n);
    } else if (bytes == 4) {
      int32_t n;
      std::memcpy(&n, at, 4);
      values[i] = n;
    } else if (bytes == 2) {
      int16_t n;
      std::memcpy(&n, at, 2);
      values[i] = n;
    } else {
      values[i] = static_cast<int8_t>(*at);
    }
  }
  return values;
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Index of the largest value of each row of `row` values (the first on
/// ties).
std::vector<int64_t> argmaxRows(const std::vector<double> &v, int64_t row) {
  std::vector<int64_t> out;
  for (size_t start = 0; start + row <= v.size(); start += row) {
    int64_t best = 0;
    for (int64_t j = 1; j < row; ++j)
      if (v[start + j] > v[start + best])
        best = j;
    out.push_back(best);
  }
  return out;
}

} // namespace

llvm::Expected<Validation> mix::validate(CompiledNetwork &compiled,
                                         const CompileOptions &compile,
                                         StringRef entry,
                                         const ValidationOptions &options) {
  const NetworkSignature &sig = compiled.signature();
  MLIRContext context;
  loadMixDialects(context);
  ModelLoadOptions load;
  load.precisionPlanPath = compile.precisionPlanPath;
  auto module = loadModelWithWeights(compile.modelPath, compile.weightsPath,
                                     context, load);
  if (!module)
    return module.takeError();
  auto network = findNetwork(**module, sig.name);
  if (!network)
    return network.takeError();
  auto file = io::SafetensorsFile::open(options.samplesPath);
  if (!file)
    return file.takeError();
  auto samples = loadSamples(*network, *file);
  if (!samples)
    return samples.takeError();
  if (samples->empty())
    return makeError(options.samplesPath + ": no samples");
  if (sig.outputs.empty())
    return makeError("network @" + sig.name + " has no outputs to validate");

  Validation v;
  v.samples = static_cast<int64_t>(samples->size());
  // Buffers of one sample.
  std::vector<std::vector<uint8_t>> outputs;
  for (const HeaderTensor &t : sig.outputs)
    outputs.emplace_back(product(t.shape) * elementBytes(t));
  void *workspace = nullptr;
  if (uint64_t bytes = compiled.workspaceBytes())
    if (posix_memalign(&workspace, 64, bytes) != 0)
      return makeError("cannot allocate the workspace");
  struct FreeWorkspace {
    void *p;
    ~FreeWorkspace() { std::free(p); }
  } freeWorkspace{workspace};

  std::vector<ErrorSums> sums(sig.outputs.size());
  // Output 0 of every sample, for the losses.
  std::vector<double> refFirst, gotFirst;
  for (auto [index, sample] : llvm::enumerate(*samples)) {
    if (sample.size() != sig.inputs.size())
      return makeError("sample " + llvm::Twine(index) + " has " +
                       llvm::Twine(sample.size()) + " inputs, network @" +
                       sig.name + " takes " + llvm::Twine(sig.inputs.size()));
    std::vector<std::vector<uint8_t>> inputs;
    for (auto [i, t] : llvm::enumerate(sig.inputs)) {
      if (static_cast<int64_t>(sample[i].data.size()) != product(t.shape))
        return makeError(
            options.samplesPath + ": input" + llvm::Twine(i) + " of sample " +
            llvm::Twine(index) + " has " + llvm::Twine(sample[i].data.size()) +
            " values, the compiled network takes " + formatShape(t.shape));
      inputs.push_back(toBuffer(t, sample[i].data));
    }
    std::vector<void *> pointers;
    for (auto &b : inputs)
      pointers.push_back(b.data());
    for (auto &b : outputs)
      pointers.push_back(b.data());
    mixrt_check_reset();
    compiled.prepare(pointers, 1, workspace)();
    if (mixrt_check_status() != MIXRT_STATUS_OK)
      return makeError("sample " + llvm::Twine(index) +
                       ": the compiled network failed a run-time check: " +
                       mixrt_last_error_message());
    auto reference = interpret(*network, sample, {});
    if (!reference)
      return makeError("sample " + llvm::Twine(index) + " (reference): " +
                       llvm::toString(reference.takeError()));
    for (auto [o, t] : llvm::enumerate(sig.outputs)) {
      std::vector<double> got = fromBuffer(t, outputs[o]);
      const std::vector<double> &want = (*reference)[o].data;
      if (got.size() != want.size())
        return makeError("internal error: output " + llvm::Twine(o) +
                         " has another size in the interpreter");
      for (size_t k = 0; k < got.size(); ++k)
        sums[o].add(got[k], want[k]);
      if (o == 0) {
        refFirst.insert(refFirst.end(), want.begin(), want.end());
        gotFirst.insert(gotFirst.end(), got.begin(), got.end());
      }
    }
  }
  for (auto [t, s] : llvm::zip_equal(sig.outputs, sums)) {
    OutputAccuracy a;
    a.name = t.name;
    a.values = s.count;
    a.mismatches = s.mismatches;
    a.maxAbsError = s.maxAbs;
    a.sqnrDb = s.sqnrDb();
    v.outputs.push_back(a);
  }

  // Losses of output 0.
  const HeaderTensor &first = sig.outputs.front();
  int64_t row = first.shape.empty() ? 1 : first.shape.back();
  std::optional<std::vector<double>> targets;
  if (options.loss == "mse" || options.loss == "quantile" ||
      (options.loss == "top1" && file->find("target0"))) {
    auto read = file->readAsDouble("target0");
    if (!read)
      return makeError("--loss " + options.loss +
                       " needs the targets of output 0 as tensor 'target0': " +
                       llvm::toString(read.takeError()));
    targets = std::move(*read);
  }
  if (options.loss == "top1") {
    if (row < 2)
      return makeError("--loss top1: output 0 of @" + sig.name + " has shape " +
                       formatShape(first.shape) +
                       "; top-1 needs classes along its last axis");
    std::vector<int64_t> ref = argmaxRows(refFirst, row);
    std::vector<int64_t> got = argmaxRows(gotFirst, row);
    int64_t agree = 0;
    for (size_t i = 0; i < ref.size(); ++i)
      agree += ref[i] == got[i];
    v.losses.push_back(
        {"top1-agreement", 1.0,
         double(agree) / double(std::max<size_t>(1, ref.size()))});
    if (targets) {
      if (targets->size() != ref.size())
        return makeError(options.samplesPath + ": 'target0' has " +
                         llvm::Twine(targets->size()) +
                         " labels, output 0 has " + llvm::Twine(ref.size()) +
                         " rows over all samples");
      int64_t refRight = 0, gotRight = 0;
      for (size_t i = 0; i < ref.size(); ++i) {
        refRight += double(ref[i]) == (*targets)[i];
        gotRight += double(got[i]) == (*targets)[i];
      }
      double n = double(ref.size());
      v.losses.push_back({"top1-accuracy", refRight / n, gotRight / n});
    }
  } else if (options.loss == "mse" || options.loss == "quantile") {
    bool quantile = options.loss == "quantile";
    size_t perTarget = quantile ? options.quantiles.size() : 1;
    if (quantile && static_cast<int64_t>(perTarget) != row)
      return makeError("--quantiles gives " + llvm::Twine(perTarget) +
                       " quantiles, output 0 of @" + sig.name + " has " +
                       llvm::Twine(row) + " along its last axis");
    if (targets->size() * perTarget != refFirst.size())
      return makeError(
          options.samplesPath + ": 'target0' has " +
          llvm::Twine(targets->size()) + " values; output 0 needs " +
          llvm::Twine(refFirst.size() / perTarget) + " over all samples" +
          (quantile ? " (one per row of quantiles)" : ""));
    auto loss = [&](const std::vector<double> &y) {
      double sum = 0;
      for (size_t i = 0; i < targets->size(); ++i)
        for (size_t q = 0; q < perTarget; ++q) {
          double e = (*targets)[i] - y[i * perTarget + q];
          if (!quantile) {
            sum += e * e;
          } else {
            double tau = options.quantiles[q];
            sum += e >= 0 ? tau * e : (tau - 1) * e;
          }
        }
      return sum / double(targets->size() * perTarget);
    };
    v.losses.push_back({options.loss, loss(refFirst), loss(gotFirst)});
  }

  // Per layer: the model after the quantize phase, interpreted.
  OwningOpRef<ModuleOp> lowered = (*module)->clone();
  MixPipelineOptions pipeline;
  pipeline.stopAfter = MixPhase::quantize;
  pipeline.verifyPolicy = false;
  pipeline.calibrationPath = compile.pipeline.calibrationPath.getValue();
  pipeline.checkedCasts = compile.pipeline.checkedCasts.getValue();
  pipeline.foldBatchNorm = compile.pipeline.foldBatchNorm.getValue();
  pipeline.weightGranularity = compile.pipeline.weightGranularity.getValue();
  PassManager pm(&context);
  if (failed(buildMixPipeline(pm, pipeline)) || failed(pm.run(*lowered)))
    return makeError("the model does not lower for the per-layer comparison");
  auto loweredNetwork = findNetwork(*lowered, sig.name);
  if (!loweredNetwork)
    return loweredNetwork.takeError();
  auto layers = compareLayers(*network, *loweredNetwork, *samples, {});
  if (!layers)
    return layers.takeError();
  v.layers = std::move(*layers);
  return v;
}

void mix::printValidation(llvm::raw_ostream &os, const Validation &v) {
  os << "  validation: " << v.samples
     << " sample(s), compiled against the f64 reference\n";
  for (const OutputAccuracy &a : v.outputs) {
    os << "    output " << a.name << ": SQNR ";
    if (a.sqnrDb > 0 && std::isinf(a.sqnrDb))
      os << "exact";
    else
      os << llvm::format("%.1f dB", a.sqnrDb);
    os << llvm::format(", max abs error %.3e", a.maxAbsError) << " over "
       << a.values << " values";
    if (a.mismatches != 0)
      os << ", " << a.mismatches
         << " of them NaN or infinite where the reference differs";
    os << "\n";
  }
  for (const LossFigures &l : v.losses) {
    if (l.kind == "top1-agreement") {
      os << llvm::format("    top-1 agreement with the reference: %.2f%%\n",
                         100 * l.compiled);
      continue;
    }
    if (l.kind == "top1-accuracy") {
      os << llvm::format("    top-1 accuracy: reference %.2f%%, compiled "
                         "%.2f%%\n",
                         100 * l.reference, 100 * l.compiled);
      continue;
    }
    double change =
        l.reference == 0
            ? (l.compiled == 0 ? 0.0 : std::numeric_limits<double>::infinity())
            : (l.compiled - l.reference) / l.reference;
    os << llvm::format("    %s loss: reference %.6g, compiled %.6g (%+.2f%%)\n",
                       l.kind.c_str(), l.reference, l.compiled, 100 * change);
  }
  os << "  per layer (interpreted after the quantize phase):\n";
  std::string table;
  llvm::raw_string_ostream t(table);
  printAccuracyTable(t, v.layers);
  llvm::StringRef rest(table);
  while (!rest.empty()) {
    auto [line, next] = rest.split('\n');
    os << "    " << line << "\n";
    rest = next;
  }
}

llvm::json::Object mix::validationToJson(const Validation &v) {
  auto number = [](double x) -> llvm::json::Value {
    if (std::isnan(x))
      return "nan";
    if (std::isinf(x))
      return x > 0 ? "inf" : "-inf";
    return x;
  };
  llvm::json::Array outputs, losses, layers;
  for (const OutputAccuracy &a : v.outputs)
    outputs.push_back(
        llvm::json::Object{{"name", a.name},
                           {"sqnr_db", number(a.sqnrDb)},
                           {"max_abs_error", number(a.maxAbsError)},
                           {"values", a.values},
                           {"mismatches", a.mismatches}});
  for (const LossFigures &l : v.losses)
    losses.push_back(llvm::json::Object{{"kind", l.kind},
                                        {"reference", l.reference},
                                        {"compiled", l.compiled}});
  for (const LayerAccuracy &a : v.layers)
    layers.push_back(
        llvm::json::Object{{"layer", a.layer},
                           {"location", a.location},
                           {"precision", a.precision},
                           {"sqnr_db", number(a.sqnrDb)},
                           {"max_abs_error", number(a.maxAbsError)},
                           {"values", a.values},
                           {"mismatches", a.mismatches}});
  return llvm::json::Object{{"samples", v.samples},
                            {"outputs", std::move(outputs)},
                            {"losses", std::move(losses)},
                            {"layers", std::move(layers)}};
}
