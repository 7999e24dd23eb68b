//===- compiled_bench.cpp - speed of code compiled by mixc ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A dense layer [M, K] x [K, N] compiled by mixc (the driver itself: -O2,
// host CPU, checks on; the object it writes loaded and run in process, so
// this times exactly what `mixc` emits) against references measured in the
// same run:
//
//   f32 dense   vs a naive i-j-k C++ loop (same arithmetic: fmaf, k
//               ascending)                                   -> vs_naive
//   int8 dense  (dynamic activation scale, per-channel weights) vs mixrt
//               doing the same work: mixrt_quantize_f32 of the input, then
//               mixrt_gemm_s8_f32 (AVX2)                     -> vs_mixrt
//
// Rates are GOP/s (2*M*N*K) on the thread's CPU time. The compiled GEMMs are
// linalg lowered to loops with n innermost, which LLVM vectorizes; there is
// no tiling or register blocking yet: these ratios are what that costs.
//
//===----------------------------------------------------------------------===//

#include "compiler/CompiledNetwork.h"
#include "mixrt/mixrt.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {
constexpr int64_t M = 64, K = 512, N = 256;

double threadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

std::vector<float> values(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  for (float &x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = float(double((seed >> 11) & 0xFFFFF) / double(0x100000) - 0.5);
  }
  return v;
}

/// A dense layer `precision` with the weights `w` inline, compiled by the
/// mixc driver for this machine (-O2, host CPU, checks on) and loaded from
/// the object it wrote: exactly the code `mixc` emits (CompiledNetwork.h).
struct CompiledDense {
  std::unique_ptr<mix::CompiledNetwork> net;
  std::vector<uint8_t> workspace;
  void *ws = nullptr;

  CompiledDense(const std::string &precision, const std::vector<float> &w) {
    std::string x = std::to_string(M) + "x" + std::to_string(K);
    std::string wt = std::to_string(K) + "x" + std::to_string(N);
    std::string y = std::to_string(M) + "x" + std::to_string(N);
    std::string data;
    llvm::raw_string_ostream os(data);
    os << "[";
    for (int64_t k = 0; k < K; ++k) {
      os << (k ? ", [" : "[");
      for (int64_t n = 0; n < N; ++n)
        os << (n ? ", " : "") << llvm::format("%.9g", w[k * N + n]);
      os << "]";
    }
    os << "]";
    std::string source =
        "mix.network @d precision(f32) (%x: tensor<" + x + "xf32>) -> tensor<" +
        y + "xf32> {\n  %w = mix.weight dense<" + data + "> : tensor<" + wt +
        "xf32>\n  %y = mix.dense %x, %w precision(" + precision +
        ") : (tensor<" + x + "xf32>, tensor<" + wt + "xf32>) -> tensor<" + y +
        "xf32>\n  mix.return %y : tensor<" + y + "xf32>\n}\n";
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile("bench-dense", "mlir", path))
      return;
    {
      std::error_code ec;
      llvm::raw_fd_ostream file(path, ec);
      file << source;
    }
    mix::CompileOptions options;
    options.modelPath = path.str().str();
    options.progress = mix::ProgressMode::never;
    options.pipeline.verifyPolicy = false; // f32 on f32 is redundant
    auto compiled = mix::CompiledNetwork::compile(options, "d", llvm::errs());
    llvm::sys::fs::remove(path);
    if (!compiled) {
      llvm::errs() << llvm::toString(compiled.takeError()) << "\n";
      return;
    }
    net = std::move(*compiled);
    workspace.resize(net->workspaceBytes() + 64);
    ws = reinterpret_cast<void *>(
        (reinterpret_cast<uintptr_t>(workspace.data()) + 63) & ~uintptr_t(63));
  }
};

void naiveDense(const float *x, const float *w, float *y) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k)
        acc = std::fmaf(x[i * K + k], w[k * N + j], acc);
      y[i * N + j] = acc;
    }
}

void mixrtInt8Dense(const float *x, const mixrt_qtensor *qw, float *y) {
  mixrt_qtensor *qx = nullptr;
  int64_t shape[2] = {M, K};
  if (mixrt_quantize_f32(x, shape, 2, MIXRT_QSCHEME_SYMMETRIC, MIXRT_PER_TENSOR,
                         &qx) != MIXRT_STATUS_OK)
    return;
  mixrt_gemm_s8_operand a = {mixrt_qtensor_data(qx), K, 0,
                             mixrt_qtensor_scales(qx), nullptr};
  mixrt_gemm_s8_operand b = {mixrt_qtensor_data(qw), N, 1,
                             mixrt_qtensor_scales(qw), nullptr};
  mixrt_gemm_s8_f32(M, N, K, &a, &b, y, N);
  mixrt_qtensor_destroy(qx);
}

/// Seconds per call of `fn`, on thread CPU time, over at least 0.2 s.
template <typename Fn> double secondsPerCall(Fn &&fn) {
  int64_t calls = 0;
  double start = threadSeconds();
  do {
    fn();
    ++calls;
  } while (threadSeconds() - start < 0.2);
  return (threadSeconds() - start) / double(calls);
}

/// Runs the compiled layer in the benchmark loop; seconds per call.
double timeCompiled(benchmark::State &state, CompiledDense &dense, float *x,
                    float *y) {
  void *buffers[] = {x, y};
  mix::CompiledNetwork::Call call = dense.net->prepare(buffers, 1, dense.ws);
  double start = threadSeconds();
  for (auto _ : state) {
    call();
    benchmark::DoNotOptimize(y);
  }
  return (threadSeconds() - start) / double(state.iterations());
}

/// GOP/s of the compiled layer and of the reference, and their ratio.
void setRates(benchmark::State &state, double compiled,
              const std::string &reference, double referenceSeconds) {
  double ops = 2.0 * M * N * K;
  state.counters["GOPS"] = ops / compiled * 1e-9;
  state.counters[reference + "_GOPS"] = ops / referenceSeconds * 1e-9;
  state.counters["vs_" + reference] = referenceSeconds / compiled;
}

void BM_CompiledDenseF32(benchmark::State &state) {
  std::vector<float> x = values(M * K, 1), w = values(K * N, 2), y(M * N);
  CompiledDense dense("f32", w);
  if (!dense.net) {
    state.SkipWithError("compilation failed");
    return;
  }
  double naive =
      secondsPerCall([&] { naiveDense(x.data(), w.data(), y.data()); });
  setRates(state, timeCompiled(state, dense, x.data(), y.data()), "naive",
           naive);
}

void BM_CompiledDenseInt8(benchmark::State &state) {
  std::vector<float> x = values(M * K, 3), w = values(K * N, 4), y(M * N);
  CompiledDense dense("int8", w);
  if (!dense.net) {
    state.SkipWithError("compilation failed");
    return;
  }
  mixrt_qtensor *qw = nullptr;
  int64_t shape[2] = {K, N};
  if (mixrt_quantize_f32(w.data(), shape, 2, MIXRT_QSCHEME_SYMMETRIC, 1, &qw) !=
      MIXRT_STATUS_OK) {
    state.SkipWithError("mixrt quantize failed");
    return;
  }
  double mixrt =
      secondsPerCall([&] { mixrtInt8Dense(x.data(), qw, y.data()); });
  setRates(state, timeCompiled(state, dense, x.data(), y.data()), "mixrt",
           mixrt);
  mixrt_qtensor_destroy(qw);
}

BENCHMARK(BM_CompiledDenseF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompiledDenseInt8)->Unit(benchmark::kMillisecond);
} // namespace

BENCHMARK_MAIN();
