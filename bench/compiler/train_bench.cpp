//===- train_bench.cpp - compiled training steps, f32 against mixed -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The training step `mixc --train` emits (compiler/CompiledTraining.h: the
// gradient network compiled by the mixc driver, -O2, host CPU, checks on,
// driven by mixrt's trainer exactly as the generated header does) for an
// MLP 256 -> 512 -> 512 -> 10 (relu, cross-entropy) on a batch of 128,
// its hidden layers in a block of precision f32 or f16 (the mixed run):
//
//   step        NAME_train_step: the gradient network + mixrt_train_finish
//               (unscale and finite check in one pass, norm, Adam on f64
//               masters, working copies re-derived)
//   gradient    the gradient network alone (forward and backward)
//   unscale     mixrt_loss_scaler_unscale_f32 over the same gradients: the
//               loss scaler's unscale + inf/NaN pass on its own (the step's
//               finish fuses it with the max and the norm's sum)
//   copy        a memcpy of the same gradient bytes: one streaming pass, the
//               floor of any pass over the gradients
//
// Single thread; times are the calling thread's CPU time. After the run a
// table gives, per body precision: step f16 / step f32, the share of the
// step spent outside the gradient network (the trainer), the share spent
// in the unscale + finite check, and unscale / copy (about 1: one pass).
//
//===----------------------------------------------------------------------===//

#include "bench_util.h"

#include "compiler/CompiledTraining.h"
#include "mixrt/mixrt.h"

#include "llvm/Support/TargetSelect.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int kBatch = 128, kIn = 256, kHidden = 512, kClasses = 10;

std::string model(const std::string &body) {
  auto t = [](int a, int b) {
    return "tensor<" + std::to_string(a) + "x" + std::to_string(b) + "xf32>";
  };
  auto v = [](int a) { return "tensor<" + std::to_string(a) + "xf32>"; };
  std::string B = std::to_string(kBatch);
  return "mix.network @mlp precision(f32) (%x: " + t(kBatch, kIn) +
         ", %labels: tensor<" + B + "xi32>) -> tensor<f32> {\n" +
         "  %h = mix.block @body precision(" + body + ") (%a = %x) : (" +
         t(kBatch, kIn) + ") -> " + t(kBatch, kHidden) + " {\n" +
         "    %w1 = mix.weight external \"w1\" : " + t(kIn, kHidden) + "\n" +
         "    %b1 = mix.weight external \"b1\" : " + v(kHidden) + "\n" +
         "    %d1 = mix.dense %a, %w1, %b1 : (" + t(kBatch, kIn) + ", " +
         t(kIn, kHidden) + ", " + v(kHidden) + ") -> " + t(kBatch, kHidden) +
         "\n    %r1 = mix.relu %d1 : (" + t(kBatch, kHidden) + ") -> " +
         t(kBatch, kHidden) + "\n" +
         "    %w2 = mix.weight external \"w2\" : " + t(kHidden, kHidden) +
         "\n" + "    %b2 = mix.weight external \"b2\" : " + v(kHidden) + "\n" +
         "    %d2 = mix.dense %r1, %w2, %b2 : (" + t(kBatch, kHidden) + ", " +
         t(kHidden, kHidden) + ", " + v(kHidden) + ") -> " +
         t(kBatch, kHidden) + "\n    %r2 = mix.relu %d2 : (" +
         t(kBatch, kHidden) + ") -> " + t(kBatch, kHidden) + "\n" +
         "    mix.yield %r2 : " + t(kBatch, kHidden) + "\n  }\n" +
         "  %w3 = mix.weight external \"w3\" : " + t(kHidden, kClasses) + "\n" +
         "  %b3 = mix.weight external \"b3\" : " + v(kClasses) + "\n" +
         "  %z = mix.dense %h, %w3, %b3 : (" + t(kBatch, kHidden) + ", " +
         t(kHidden, kClasses) + ", " + v(kClasses) + ") -> " +
         t(kBatch, kClasses) + "\n" +
         "  %l = mix.cross_entropy_loss %z, %labels : (" + t(kBatch, kClasses) +
         ", tensor<" + B + "xi32>) -> tensor<f32>\n" +
         "  mix.return %l : tensor<f32>\n}\n";
}

struct Setup {
  std::unique_ptr<mix::CompiledTraining> training;
  std::vector<float> x;
  std::vector<int32_t> labels;
  std::string error;
};

std::map<std::string, Setup> &setups() {
  static std::map<std::string, Setup> s;
  return s;
}

/// The step of `body`, compiled once and started (Adam, f64 masters).
Setup &setup(const std::string &body) {
  Setup &s = setups()[body];
  if (s.training || !s.error.empty())
    return s;
  // Weights scaled like He initialization, zero biases.
  std::vector<float> w1 = mixbench::values(size_t(kIn) * kHidden, 1),
                     w2 = mixbench::values(size_t(kHidden) * kHidden, 2),
                     w3 = mixbench::values(size_t(kHidden) * kClasses, 3),
                     b1(kHidden), b2(kHidden), b3(kClasses);
  for (float &w : w1)
    w *= 0.3f;
  for (float &w : w2)
    w *= 0.2f;
  for (float &w : w3)
    w *= 0.2f;
  std::string weights =
      mixbench::writeSafetensors({{"w1", {kIn, kHidden}, &w1},
                                  {"b1", {kHidden}, &b1},
                                  {"w2", {kHidden, kHidden}, &w2},
                                  {"b2", {kHidden}, &b2},
                                  {"w3", {kHidden, kClasses}, &w3},
                                  {"b3", {kClasses}, &b3}},
                                 "train-bench", s.error);
  if (weights.empty())
    return s;
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("train-bench", "mlir", path)) {
    s.error = "cannot create a temporary model file";
    return s;
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(path, ec);
    file << model(body);
  }
  mix::CompileOptions options;
  options.modelPath = path.str().str();
  options.weightsPath = weights;
  options.progress = mix::ProgressMode::never;
  options.pipeline.verifyPolicy = false;
  auto compiled = mix::CompiledTraining::compile(options, "mlp", llvm::errs());
  llvm::sys::fs::remove(path);
  llvm::sys::fs::remove(weights);
  if (!compiled) {
    s.error = llvm::toString(compiled.takeError());
    return s;
  }
  s.training = std::move(*compiled);
  mixrt_train_config config;
  mixrt_train_config_init(&config);
  mixrt_optimizer_config_init(MIXRT_OPTIMIZER_ADAM, &config.optimizer);
  if (s.training->init(config) != MIXRT_STATUS_OK) {
    s.error = mixrt_last_error_message();
    s.training.reset();
    return s;
  }
  s.x = mixbench::values(size_t(kBatch) * kIn, 4);
  s.labels.resize(kBatch);
  for (int i = 0; i < kBatch; ++i)
    s.labels[i] = i % kClasses;
  return s;
}

std::map<std::string, double> &results() {
  static std::map<std::string, double> r;
  return r;
}

/// Times `body` per iteration in thread CPU seconds, recorded as `key`.
template <typename F>
void timed(benchmark::State &state, const std::string &key, F &&body) {
  double seconds = 0;
  for (auto _ : state) {
    double start = mixbench::threadSeconds();
    body();
    seconds += mixbench::threadSeconds() - start;
  }
  if (state.iterations())
    results()[key] = seconds / double(state.iterations());
}

void BM_Step(benchmark::State &state, std::string body) {
  Setup &s = setup(body);
  if (!s.training)
    return state.SkipWithError(s.error.c_str());
  timed(state, "step " + body, [&] {
    mixrt_train_step_result r;
    if (s.training->step({s.x.data(), s.labels.data()}, &r) != MIXRT_STATUS_OK)
      state.SkipWithError(mixrt_last_error_message());
    benchmark::DoNotOptimize(r.loss);
  });
}

void BM_Gradient(benchmark::State &state, std::string body) {
  Setup &s = setup(body);
  if (!s.training)
    return state.SkipWithError(s.error.c_str());
  timed(state, "gradient " + body, [&] {
    if (s.training->runGradient({s.x.data(), s.labels.data()}) !=
        MIXRT_STATUS_OK)
      state.SkipWithError(mixrt_last_error_message());
  });
}

/// Copies of the gradient buffers' sizes (f32), for the passes below.
std::vector<std::vector<float>> gradientCopies(const Setup &s) {
  std::vector<std::vector<float>> g;
  for (int64_t i = 0; i < s.training->layout().num_params; ++i)
    g.push_back(mixbench::values(size_t(s.training->elements(size_t(i))),
                                 10 + uint64_t(i)));
  return g;
}

void BM_Unscale(benchmark::State &state, std::string body) {
  Setup &s = setup(body);
  if (!s.training)
    return state.SkipWithError(s.error.c_str());
  std::vector<std::vector<float>> g = gradientCopies(s);
  std::vector<float *> ptrs;
  std::vector<int64_t> sizes;
  for (auto &v : g) {
    ptrs.push_back(v.data());
    sizes.push_back(int64_t(v.size()));
  }
  // Scale 1: the values stay as they are from one iteration to the next.
  mixrt_loss_scaler_config config;
  mixrt_loss_scaler_config_init(&config);
  config.initial_scale = 1;
  config.min_scale = 1;
  mixrt_loss_scaler *scaler = nullptr;
  mixrt_loss_scaler_create(&config, &scaler);
  timed(state, "unscale " + body, [&] {
    int32_t found = 0;
    mixrt_loss_scaler_unscale_f32(scaler, ptrs.data(), sizes.data(),
                                  int64_t(ptrs.size()), &found);
    benchmark::DoNotOptimize(found);
  });
  mixrt_loss_scaler_destroy(scaler);
}

void BM_Copy(benchmark::State &state, std::string body) {
  Setup &s = setup(body);
  if (!s.training)
    return state.SkipWithError(s.error.c_str());
  std::vector<std::vector<float>> g = gradientCopies(s), to = g;
  timed(state, "copy " + body, [&] {
    for (size_t i = 0; i < g.size(); ++i)
      std::memcpy(to[i].data(), g[i].data(), g[i].size() * sizeof(float));
    benchmark::ClobberMemory();
  });
}

std::string ratio(double a, double b) { return mixbench::ratio(a, b, 3); }

void printTable() {
  auto get = [](const std::string &key) {
    auto it = results().find(key);
    return it == results().end() ? 0.0 : it->second;
  };
  std::printf("\nTraining step, MLP %d-%d-%d-%d, batch %d (single thread, "
              "thread CPU time; '-': not measured):\n",
              kIn, kHidden, kHidden, kClasses, kBatch);
  std::printf("%-6s %10s %12s %14s %15s %13s\n", "body", "step ms", "step/f32",
              "trainer share", "unscale share", "unscale/copy");
  for (const char *body : {"f32", "f16"}) {
    std::string b = body;
    double step = get("step " + b), grad = get("gradient " + b);
    std::printf("%-6s %10.3f %12s %14s %15s %13s\n", body, step * 1e3,
                ratio(step, get("step f32")).c_str(),
                ratio(step - grad, step).c_str(),
                ratio(get("unscale " + b), step).c_str(),
                ratio(get("unscale " + b), get("copy " + b)).c_str());
  }
  std::printf("(trainer share: (step - gradient network) / step: unscale and "
              "finite check, norm, Adam on f64 masters, working copies; "
              "unscale share: the fused unscale + inf/NaN pass / step; "
              "unscale/copy: that pass / a memcpy of the same bytes)\n");
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  for (const char *body : {"f32", "f16"}) {
    std::string b = body;
    benchmark::RegisterBenchmark(("BM_Step/" + b).c_str(), BM_Step, b)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Gradient/" + b).c_str(), BM_Gradient, b)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Unscale/" + b).c_str(), BM_Unscale, b)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_Copy/" + b).c_str(), BM_Copy, b)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  printTable();
  setups().clear();
  return 0;
}
