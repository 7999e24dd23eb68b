//===- compiled_bench.cpp - speed of code compiled by mixc ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A dense layer [M, K] x [K, N] compiled by mixc (the whole pipeline, JIT at
// -O2, host CPU) against references measured in the same run:
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

#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"
#include "dialect/MixOps.h"
#include "mixrt/mixrt.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

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

StridedMemRefType<float, 2> view(float *p, int64_t rows, int64_t cols) {
  StridedMemRefType<float, 2> m;
  m.basePtr = m.data = p;
  m.offset = 0;
  m.sizes[0] = rows;
  m.sizes[1] = cols;
  m.strides[0] = cols;
  m.strides[1] = 1;
  return m;
}

/// A JIT-compiled dense layer `precision` with the weights `w` inline.
struct CompiledDense {
  MLIRContext context;
  std::unique_ptr<ExecutionEngine> engine;
  void (*fn)(StridedMemRefType<float, 2> *,
             StridedMemRefType<float, 2> *) = nullptr;

  CompiledDense(const std::string &precision, const std::vector<float> &w) {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    DialectRegistry registry;
    mix::registerMixPipelineDependencies(registry);
    context.appendDialectRegistry(registry);
    mix::loadMixDialects(context);
    std::string x = std::to_string(M) + "x" + std::to_string(K);
    std::string wt = std::to_string(K) + "x" + std::to_string(N);
    std::string y = std::to_string(M) + "x" + std::to_string(N);
    std::string source =
        "mix.network @d precision(f32) (%x: tensor<" + x + "xf32>) -> tensor<" +
        y + "xf32> {\n  %w = mix.weight external \"w\" : tensor<" + wt +
        "xf32>\n  %y = mix.dense %x, %w precision(" + precision +
        ") : (tensor<" + x + "xf32>, tensor<" + wt + "xf32>) -> tensor<" + y +
        "xf32>\n  mix.return %y : tensor<" + y + "xf32>\n}\n";
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    module->walk([&](mix::WeightOp op) {
      auto type = cast<RankedTensorType>(op.getType());
      op.setValueAttr(DenseElementsAttr::get(type, llvm::ArrayRef(w)));
      op.removeRefAttr();
    });
    PassManager pm(&context);
    if (failed(mix::buildMixPipeline(pm, mix::MixPipelineOptions())) ||
        failed(pm.run(*module)))
      return;
    // A function_ref: the function must outlive create().
    std::function<llvm::Error(llvm::Module *)> optimize =
        makeOptimizingTransformer(2, 0, nullptr);
    ExecutionEngineOptions options;
    options.transformer = optimize;
    auto created = ExecutionEngine::create(*module, options);
    if (!created) {
      llvm::consumeError(created.takeError());
      return;
    }
    engine = std::move(*created);
    engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols;
      symbols[interner("mixrt_check_fail")] = {
          llvm::orc::ExecutorAddr::fromPtr(&mixrt_check_fail),
          llvm::JITSymbolFlags::Exported};
      return symbols;
    });
    if (auto f = engine->lookup("_mlir_ciface_d"))
      fn = reinterpret_cast<decltype(fn)>(*f);
    else
      llvm::consumeError(f.takeError());
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
  auto in = view(x, M, K), out = view(y, M, N);
  double start = threadSeconds();
  for (auto _ : state) {
    dense.fn(&in, &out);
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
  if (!dense.fn) {
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
  if (!dense.fn) {
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
