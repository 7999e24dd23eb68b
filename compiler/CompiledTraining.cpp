//===- CompiledTraining.cpp - a training step compiled and run in process -===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/CompiledTraining.h"
#include "compiler/ModelLoader.h"
#include "passes/Passes.h"
#include "support/Error.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir;
using namespace mix;

namespace {

template <typename T> std::vector<double> widen(const void *data, int64_t n) {
  const T *p = static_cast<const T *>(data);
  return std::vector<double>(p, p + n);
}

} // namespace

CompiledTraining::~CompiledTraining() { std::free(trainState); }

llvm::Expected<std::unique_ptr<CompiledTraining>>
CompiledTraining::compile(const CompileOptions &options,
                          llvm::StringRef network,
                          llvm::raw_ostream &diagnostics) {
  std::unique_ptr<CompiledTraining> t(new CompiledTraining());

  // mix-differentiate{weights-as-inputs}, written to a temporary model.
  std::string text;
  {
    MLIRContext context;
    loadMixDialects(context);
    auto module = loadModel(options.modelPath, context);
    if (!module)
      return module.takeError();
    PassManager pm(&context);
    pm.addPass(createMixDifferentiatePass({network.str(),
                                           /*weightsAsInputs=*/true}));
    std::string messages;
    llvm::raw_string_ostream os(messages);
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      os << d.str() << "\n";
      return success();
    });
    if (failed(pm.run(**module)))
      return makeError(options.modelPath + ": cannot differentiate @" +
                       network + ": " + messages);
    llvm::raw_string_ostream out(text);
    (*module)->print(out);
  }
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("mixc-train", "mlir", path))
    return makeError("cannot create a temporary file: " + ec.message());
  struct Remove {
    std::string path;
    ~Remove() { llvm::sys::fs::remove(path); }
  } remove{path.str().str()};
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return makeError("cannot write " + path.str() + ": " + ec.message());
    os << text;
  }
  CompileOptions compileOptions = options;
  compileOptions.modelPath = path.str().str();
  auto compiled = CompiledNetwork::compile(
      compileOptions, (network + "_grad").str(), diagnostics);
  if (!compiled)
    return compiled.takeError();
  t->grad = std::move(*compiled);
  compiled = CompiledNetwork::compile(
      compileOptions, (network + "_initial_weights").str(), diagnostics);
  if (!compiled)
    return compiled.takeError();
  t->initial = std::move(*compiled);

  // The layout, as the header's NAME_train_layout.
  const NetworkSignature &g = t->grad->signature();
  while (t->inputs < g.inputs.size() &&
         g.inputs[t->inputs].label != "loss_scale")
    ++t->inputs;
  size_t numParams = g.inputs.size() - std::min(g.inputs.size(), t->inputs + 1);
  size_t numStats =
      g.outputs.size() - std::min(g.outputs.size(), numParams + 1);
  const NetworkSignature &init = t->initial->signature();
  if (t->inputs == g.inputs.size() || numParams == 0 ||
      init.outputs.size() != numParams + numStats)
    return makeError("@" + network +
                     "_grad is not what mix-differentiate{weights-as-inputs} "
                     "builds");
  t->names.reserve(numParams + numStats);
  t->shapes.reserve(numParams + numStats);
  for (size_t i = 0; i < numParams + numStats; ++i) {
    const HeaderTensor &x =
        i < numParams ? g.inputs[t->inputs + 1 + i] : init.outputs[i];
    t->names.push_back(x.label);
    t->shapes.push_back(x.shape);
    int32_t rank = int32_t(x.shape.size());
    int32_t f64 = x.cType == "double";
    if (i < numParams) {
      mixrt_lowp_format working = x.workingPrecision == "f16" ? MIXRT_LOWP_F16
                                  : x.workingPrecision == "bf16"
                                      ? MIXRT_LOWP_BF16
                                      : MIXRT_LOWP_NONE;
      t->params.push_back({t->names.back().c_str(), rank,
                           t->shapes.back().data(), f64, working});
    } else {
      t->stats.push_back(
          {t->names.back().c_str(), rank, t->shapes.back().data(), f64});
    }
  }
  t->trainLayout.network = "in-process";
  t->trainLayout.num_params = int64_t(t->params.size());
  t->trainLayout.params = t->params.data();
  t->trainLayout.num_stats = int64_t(t->stats.size());
  t->trainLayout.stats = t->stats.empty() ? nullptr : t->stats.data();
  t->trainLayout.workspace_bytes = int64_t(
      std::max(t->grad->workspaceBytes(), t->initial->workspaceBytes()));
  int64_t bytes = mixrt_train_state_size(&t->trainLayout);
  if (bytes <= 0)
    return makeError(std::string("mixrt_train_state_size: ") +
                     mixrt_last_error_message());
  t->stateBytes = (bytes + 63) / 64 * 64;
  t->trainState = std::aligned_alloc(64, size_t(t->stateBytes));
  if (!t->trainState)
    return makeError("cannot allocate the training state");
  return t;
}

mixrt_status_code CompiledTraining::init(const mixrt_train_config &config) {
  mixrt_train_buffers b;
  mixrt_status_code status =
      mixrt_train_prepare(trainState, stateBytes, &trainLayout, &config, &b);
  if (status != MIXRT_STATUS_OK)
    return status;
  if (!config.initial_weights) {
    std::vector<void *> outputs;
    for (size_t i = 0; i < params.size(); ++i)
      outputs.push_back(b.weights[i]);
    for (size_t i = 0; i < stats.size(); ++i)
      outputs.push_back(b.running[i]);
    mixrt_check_reset();
    initial->prepare(outputs, 1, b.workspace)();
    if ((status = mixrt_check_status()) != MIXRT_STATUS_OK)
      return status;
  }
  return mixrt_train_start(trainState);
}

mixrt_status_code CompiledTraining::callGradient(llvm::ArrayRef<void *> in,
                                                 bool &called) {
  called = false;
  mixrt_train_buffers b;
  mixrt_status_code status = mixrt_train_begin(trainState, &b);
  if (status != MIXRT_STATUS_OK)
    return status;
  if (in.size() != inputs)
    return MIXRT_STATUS_INVALID_ARGUMENT;
  std::vector<void *> all(in.begin(), in.end());
  all.push_back(b.loss_scale);
  for (size_t i = 0; i < params.size(); ++i)
    all.push_back(b.weights[i]);
  all.push_back(b.loss);
  for (size_t i = 0; i < params.size(); ++i)
    all.push_back(b.grads[i]);
  for (size_t i = 0; i < stats.size(); ++i)
    all.push_back(b.batch_stats[i]);
  mixrt_check_reset();
  grad->prepare(all, 1, b.workspace)();
  called = true;
  return mixrt_check_status();
}

mixrt_status_code CompiledTraining::runGradient(llvm::ArrayRef<void *> in) {
  bool called;
  return callGradient(in, called);
}

mixrt_status_code CompiledTraining::step(llvm::ArrayRef<void *> in,
                                         mixrt_train_step_result *result) {
  bool called;
  mixrt_status_code status = callGradient(in, called);
  return called ? mixrt_train_finish(trainState, status, result) : status;
}

mixrt_train_buffers CompiledTraining::buffers() const {
  mixrt_train_buffers b{};
  mixrt_train_begin(trainState, &b);
  return b;
}

int64_t CompiledTraining::elements(size_t i) const {
  int64_t n = 1;
  for (int64_t d : shapes[i])
    n *= d;
  return n;
}

std::vector<double> CompiledTraining::working(size_t i) const {
  const void *w = buffers().weights[i];
  return params[i].element_f64 ? widen<double>(w, elements(i))
                               : widen<float>(w, elements(i));
}

std::vector<double> CompiledTraining::running(size_t i) const {
  const void *r = buffers().running[i];
  size_t k = params.size() + i;
  return stats[i].element_f64 ? widen<double>(r, elements(k))
                              : widen<float>(r, elements(k));
}

std::vector<double> CompiledTraining::gradientOf(size_t i) const {
  const void *g = buffers().grads[i];
  return params[i].element_f64 ? widen<double>(g, elements(i))
                               : widen<float>(g, elements(i));
}

std::vector<double> CompiledTraining::master(size_t i) const {
  mixrt_master_format format = MIXRT_MASTER_F64;
  const void *m = mixrt_train_master(trainState, int64_t(i), &format);
  if (!m)
    return {};
  return format == MIXRT_MASTER_F64 ? widen<double>(m, elements(i))
                                    : widen<float>(m, elements(i));
}
