//===-- bench_gemm.cpp - INT8 and reduced GEMM throughput -----------------===//
//
// GOP/s (2*M*N*K per GEMM) of mixrt's INT8 and FP16/BF16 GEMMs at square
// sizes, reported beside
//   naive_GOPS    a naive i-j-k triple loop measured in the same run,
//   vs_naive      mixrt / naive,
//   fp32_peak     this machine's FP32 FMA peak, measured in this binary with
//                 a register-resident kernel (12 independent 8-lane FMA
//                 chains, enough to fill two FMA pipes of latency 4-5),
//   vs_fp32_peak  mixrt / fp32_peak.
// All rates use the thread's CPU time (the code is single-threaded), so other
// load on the machine does not distort the ratios.
//
//===----------------------------------------------------------------------===//

#include "mixrt/mixrt.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <ctime>
#include <map>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

/// CPU time of the calling thread: all measured code is single-threaded, and
/// unlike wall time it is not inflated by other load on the machine.
double threadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

double secondsSince(double start) { return threadSeconds() - start; }

#if defined(__x86_64__)
/// 12 independent accumulators of 8 floats, `iters` FMAs each per lane.
__attribute__((target("avx2,fma"), noinline)) float fmaKernel(int64_t iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < 12; ++i)
    sum = _mm256_add_ps(sum, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, sum);
  return out[0];
}
#endif

/// Measured FP32 FMA peak in GFLOP/s (best of 5 runs of ~0.1 s).
double fp32PeakGflops() {
  static const double peak = [] {
#if defined(__x86_64__)
    if (mixrt_cpu_simd_level() != MIXRT_SIMD_AVX2)
      return 0.0;
    const int64_t iters = 20'000'000;
    double best = 0.0;
    for (int run = 0; run < 5; ++run) {
      const double start = threadSeconds();
      benchmark::DoNotOptimize(fmaKernel(iters));
      const double flops = static_cast<double>(iters) * 12 * 8 * 2;
      best = std::max(best, flops / secondsSince(start) / 1e9);
    }
    return best;
#else
    return 0.0;
#endif
  }();
  return peak;
}

std::vector<int8_t> randomS8(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
  return v;
}

std::vector<float> randomF32(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Naive i-j-k int8 GEMM.
__attribute__((noinline)) void naiveS8(int64_t n, const int8_t *a,
                                       const int8_t *b, int32_t *c) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int32_t acc = 0;
      for (int64_t k = 0; k < n; ++k)
        acc += int32_t{a[i * n + k]} * b[k * n + j];
      c[i * n + j] = acc;
    }
}

/// Naive i-j-k reduced GEMM on pre-rounded operands (fmaf, k ascending),
/// compiled for FMA so fmaf is one instruction rather than a libm call.
#if defined(__x86_64__)
__attribute__((target("fma")))
#endif
__attribute__((noinline)) void naiveReduced(int64_t n, const float *a,
                                            const float *b, float *c) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < n; ++k)
        acc = std::fma(a[i * n + k], b[k * n + j], acc);
      c[i * n + j] = acc;
    }
}

/// GOP/s of `fn`, run until at least 0.3 s have passed (once per size).
template <class Fn> double measureGops(int64_t n, Fn fn) {
  const double ops = 2.0 * n * n * n;
  int64_t runs = 0;
  const double start = threadSeconds();
  do {
    fn();
    ++runs;
  } while (secondsSince(start) < 0.3);
  return ops * runs / secondsSince(start) / 1e9;
}

double naiveS8Gops(int64_t n) {
  static std::map<int64_t, double> cache;
  if (!cache.count(n)) {
    const std::vector<int8_t> a = randomS8(n * n, 1), b = randomS8(n * n, 2);
    std::vector<int32_t> c(n * n);
    cache[n] =
        measureGops(n, [&] { naiveS8(n, a.data(), b.data(), c.data()); });
  }
  return cache[n];
}

double naiveReducedGops(int64_t n) {
  static std::map<int64_t, double> cache;
  if (!cache.count(n)) {
    std::vector<float> a = randomF32(n * n, 1), b = randomF32(n * n, 2);
    for (float &x : a)
      x = mixrt_f16_to_f32(mixrt_f32_to_f16(x));
    for (float &x : b)
      x = mixrt_f16_to_f32(mixrt_f32_to_f16(x));
    std::vector<float> c(n * n);
    cache[n] =
        measureGops(n, [&] { naiveReduced(n, a.data(), b.data(), c.data()); });
  }
  return cache[n];
}

/// Times the benchmark loop itself and sets the GOP/s counters.
template <class Fn>
void runGemm(benchmark::State &state, int64_t n, double naiveGops, Fn fn) {
  const auto level = static_cast<mixrt_simd_level>(state.range(1));
  if (mixrt_set_simd_level(level) != MIXRT_STATUS_OK) {
    state.SkipWithError("SIMD level not available on this CPU");
    return;
  }
  state.SetLabel(level == MIXRT_SIMD_AVX2 ? "avx2" : "portable");
  double seconds = 0.0;
  for (auto _ : state) {
    const double start = threadSeconds();
    if (fn() != MIXRT_STATUS_OK)
      state.SkipWithError(mixrt_last_error_message());
    seconds += secondsSince(start);
  }
  const double gops = 2.0 * n * n * n * state.iterations() / seconds / 1e9;
  const double peak = fp32PeakGflops();
  state.counters["GOPS"] = gops;
  state.counters["naive_GOPS"] = naiveGops;
  state.counters["vs_naive"] = gops / naiveGops;
  state.counters["fp32_peak"] = peak;
  state.counters["vs_fp32_peak"] = peak > 0 ? gops / peak : 0.0;
}

void BM_GemmS8(benchmark::State &state) {
  const int64_t n = state.range(0);
  const std::vector<int8_t> a = randomS8(n * n, 1), b = randomS8(n * n, 2);
  std::vector<int32_t> c(n * n);
  runGemm(state, n, naiveS8Gops(n), [&] {
    return mixrt_gemm_s8s8s32(n, n, n, a.data(), n, b.data(), n, c.data(), n);
  });
}

void BM_GemmReduced(benchmark::State &state, mixrt_float16_format format) {
  const int64_t n = state.range(0);
  const std::vector<float> a = randomF32(n * n, 1), b = randomF32(n * n, 2);
  std::vector<float> c(n * n);
  runGemm(state, n, naiveReducedGops(n), [&] {
    return mixrt_gemm_reduced_f32(format, n, n, n, a.data(), n, b.data(), n,
                                  c.data(), n);
  });
}

void BM_Fp32FmaPeak(benchmark::State &state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(fp32PeakGflops());
  state.counters["GFLOPS"] = fp32PeakGflops();
  // Zen3 / AVX2: 2 FMA pipes x 8 lanes x 2 flops per cycle.
  state.counters["implied_GHz"] = fp32PeakGflops() / 32.0;
}

void sizes(benchmark::internal::Benchmark *b) {
  for (int64_t n : {256, 512, 1024})
    b->Args({n, MIXRT_SIMD_AVX2});
  for (int64_t n : {256, 512})
    b->Args({n, MIXRT_SIMD_PORTABLE});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

} // namespace

BENCHMARK(BM_Fp32FmaPeak)->Iterations(1);
BENCHMARK(BM_GemmS8)->Apply(sizes);
BENCHMARK_CAPTURE(BM_GemmReduced, f16, MIXRT_FORMAT_F16)->Apply(sizes);
BENCHMARK_CAPTURE(BM_GemmReduced, bf16, MIXRT_FORMAT_BF16)->Apply(sizes);

BENCHMARK_MAIN();
