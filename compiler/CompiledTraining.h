//===- CompiledTraining.h - a training step compiled and run in process ---===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// What the header of `mixc --train` does, in process (for tests and
// benchmarks): the model's network NAME is differentiated
// (mix-differentiate{weights-as-inputs}), NAME_grad and
// NAME_initial_weights are compiled by mixc and loaded (CompiledNetwork),
// and mixrt's trainer drives them with the same calls in the same order as
// NAME_train_init (prepare, the initial weights, start) and NAME_train_step
// (begin, the gradient network, finish). The layout is built from the
// signatures exactly as the header's NAME_train_layout is.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_COMPILEDTRAINING_H
#define MIXC_COMPILER_COMPILEDTRAINING_H

#include "compiler/CompiledNetwork.h"
#include "compiler/Driver.h"
#include "mixrt/mixrt.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mix {

class CompiledTraining {
public:
  /// Compiles the training step of network `network` of the model at
  /// `options.modelPath` (the other options as for mixc; the weights must
  /// be inline or bound by `options.weightsPath`).
  static llvm::Expected<std::unique_ptr<CompiledTraining>>
  compile(const CompileOptions &options, llvm::StringRef network,
          llvm::raw_ostream &diagnostics);
  ~CompiledTraining();
  CompiledTraining(const CompiledTraining &) = delete;
  CompiledTraining &operator=(const CompiledTraining &) = delete;

  /// NAME_train_init(state, &config).
  mixrt_status_code init(const mixrt_train_config &config);
  /// NAME_train_step(state, inputs..., result): `inputs` are the network's
  /// input buffers, in order.
  mixrt_status_code step(llvm::ArrayRef<void *> inputs,
                         mixrt_train_step_result *result);
  /// Only the gradient network of a step, on the current working copies
  /// and scale (begin, the call; no finish): for benchmarks.
  mixrt_status_code runGradient(llvm::ArrayRef<void *> inputs);

  const mixrt_train_layout &layout() const { return trainLayout; }
  const CompiledNetwork &gradient() const { return *grad; }
  /// The state (mixrt_train_state_size(layout()) bytes, 64-byte aligned).
  void *state() const { return trainState; }
  size_t numInputs() const { return inputs; }
  /// Elements of param `i` (then of stat `i - num_params`).
  int64_t elements(size_t i) const;
  /// The working copy of param `i` and running statistic `i`, widened to
  /// f64 (f32 or f64 buffers).
  std::vector<double> working(size_t i) const;
  std::vector<double> running(size_t i) const;
  /// The master of param `i`, widened to f64.
  std::vector<double> master(size_t i) const;
  /// The gradient buffer of param `i` (after a step: unscaled, and clipped
  /// if configured), widened to f64.
  std::vector<double> gradientOf(size_t i) const;

private:
  CompiledTraining() = default;
  mixrt_train_buffers buffers() const;
  /// begin and the gradient network; `called` says whether it ran.
  mixrt_status_code callGradient(llvm::ArrayRef<void *> inputs, bool &called);

  std::unique_ptr<CompiledNetwork> grad, initial;
  size_t inputs = 0;
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<mixrt_train_param> params;
  std::vector<mixrt_train_stat> stats;
  mixrt_train_layout trainLayout{};
  void *trainState = nullptr;
  int64_t stateBytes = 0;
};

} // namespace mix

#endif // MIXC_COMPILER_COMPILEDTRAINING_H
