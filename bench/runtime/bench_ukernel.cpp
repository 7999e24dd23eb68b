//===-- bench_ukernel.cpp - GEMM microkernels against BLAS peers ----------===//
//
// GOP/s (2*M*N*K per GEMM) of the core's microkernels (mixrt/ukernel.h),
// one benchmark per path this CPU has, at M = N = K = 256/512/1024 and the
// batch-1 GEMV shape M = 1, N = K = 1024 (also 4096), next to OpenBLAS
// sgemm and oneDNN sgemm / gemm_s8s8s32 in the same run when the build found
// them (bench-only optional dependencies). Peers run single-threaded
// (openblas_set_num_threads(1), omp_set_num_threads(1)); times are the
// calling thread's CPU time, so other load on the machine does not distort
// the ratios. The packing of B is not timed for the microkernels (mixc
// packs weights at compile time); the peers get B unpacked, as their APIs
// take it. After the run a table of ratios is printed:
//   f32:  best mixrt path / max(OpenBLAS, oneDNN) sgemm
//   int8: best mixrt path (s8s8s32) / oneDNN gemm_s8s8s32
//
//===----------------------------------------------------------------------===//

#include "mixrt/mixrt.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <vector>

#ifdef MIXC_BENCH_OPENBLAS
#include <cblas.h>
#endif
#ifdef MIXC_BENCH_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef MIXC_BENCH_OPENMP
#include <omp.h>
#endif

namespace {

double threadSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Shape {
  int64_t m, n, k;
};

const Shape kShapes[] = {{256, 256, 256},
                         {512, 512, 512},
                         {1024, 1024, 1024},
                         {1, 1024, 1024},
                         {1, 4096, 4096}};

std::string shapeName(const Shape &s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

/// Best GOP/s per (kernel, shape), for the ratio table.
std::map<std::string, double> &results() {
  static std::map<std::string, double> r;
  return r;
}

void record(const std::string &kernel, const Shape &s, double gops) {
  double &best = results()[kernel + " " + shapeName(s)];
  best = std::max(best, gops);
}

std::vector<float> randomF32(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

std::vector<int8_t> randomS8(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = static_cast<int8_t>(rng());
  return v;
}

/// Runs `fn` under the benchmark loop with manual (thread CPU) time and
/// sets the GOPS counter.
template <class Fn>
void timed(benchmark::State &state, const Shape &s, const std::string &kernel,
           Fn fn) {
  double seconds = 0.0;
  for (auto _ : state) {
    const double start = threadSeconds();
    fn();
    const double t = threadSeconds() - start;
    seconds += t;
    state.SetIterationTime(t);
  }
  const double gops =
      2.0 * s.m * s.n * s.k * state.iterations() / seconds / 1e9;
  state.counters["GOPS"] = gops;
  record(kernel, s, gops);
}

bool forceIsa(benchmark::State &state, mixrt_ukernel_isa isa) {
  if (mixrt_ukernel_set_isa(isa) != MIXRT_STATUS_OK) {
    state.SkipWithError("path not available on this CPU");
    return false;
  }
  state.SetLabel(mixrt_ukernel_isa_name(isa));
  return true;
}

void BM_UkFloat(benchmark::State &state, mixrt_ukernel_type type,
                mixrt_ukernel_isa isa, Shape s) {
  if (!forceIsa(state, isa))
    return;
  const std::vector<float> a = randomF32(s.m * s.k, 1),
                           b = randomF32(s.k * s.n, 2),
                           bias = randomF32(s.n, 3);
  std::vector<uint16_t> b16(b.size());
  for (size_t i = 0; i < b.size(); ++i)
    b16[i] = type == MIXRT_UKERNEL_F16 ? mixrt_f32_to_f16(b[i])
                                       : mixrt_f32_to_bf16(b[i]);
  std::vector<unsigned char> packed(
      static_cast<size_t>(mixrt_ukernel_packed_size(type, s.k, s.n)));
  const void *src = type == MIXRT_UKERNEL_F32
                        ? static_cast<const void *>(b.data())
                        : static_cast<const void *>(b16.data());
  if (mixrt_ukernel_pack_b(type, s.k, s.n, src, s.n, packed.data()) !=
      MIXRT_STATUS_OK) {
    state.SkipWithError("pack failed");
    return;
  }
  std::vector<float> c(s.m * s.n);
  const char *names[] = {"f32", "f16", "bf16"};
  timed(state, s,
        std::string("mixrt ") + names[type] + " " + mixrt_ukernel_isa_name(isa),
        [&] {
          benchmark::DoNotOptimize(mixrt_ukernel_gemm_f32(
              s.m, s.n, s.k, a.data(), s.k, packed.data(), c.data(), s.n,
              bias.data(), MIXRT_UKERNEL_RELU));
          benchmark::ClobberMemory();
        });
}

void BM_UkS8(benchmark::State &state, bool rescale, mixrt_ukernel_isa isa,
             Shape s) {
  if (!forceIsa(state, isa))
    return;
  const std::vector<int8_t> a = randomS8(s.m * s.k, 1),
                            b = randomS8(s.k * s.n, 2);
  const std::vector<float> scales(s.n, 0.01f), bias = randomF32(s.n, 3);
  const float aScale = 0.02f;
  std::vector<unsigned char> packed(static_cast<size_t>(
      mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8, s.k, s.n)));
  if (mixrt_ukernel_pack_b(MIXRT_UKERNEL_S8, s.k, s.n, b.data(), s.n,
                           packed.data()) != MIXRT_STATUS_OK) {
    state.SkipWithError("pack failed");
    return;
  }
  std::vector<int32_t> ci(s.m * s.n);
  std::vector<float> cf(s.m * s.n);
  timed(state, s,
        std::string(rescale ? "mixrt s8s8f32 " : "mixrt s8s8s32 ") +
            mixrt_ukernel_isa_name(isa),
        [&] {
          if (rescale)
            benchmark::DoNotOptimize(mixrt_ukernel_gemm_s8s8f32(
                s.m, s.n, s.k, a.data(), s.k, &aScale, nullptr, packed.data(),
                scales.data(), nullptr, cf.data(), s.n, bias.data(), 0));
          else
            benchmark::DoNotOptimize(mixrt_ukernel_gemm_s8s8s32(
                s.m, s.n, s.k, a.data(), s.k, nullptr, packed.data(), nullptr,
                ci.data(), s.n, 0));
          benchmark::ClobberMemory();
        });
}

#ifdef MIXC_BENCH_OPENBLAS
void BM_OpenBlasSgemm(benchmark::State &state, Shape s) {
  const std::vector<float> a = randomF32(s.m * s.k, 1),
                           b = randomF32(s.k * s.n, 2);
  std::vector<float> c(s.m * s.n);
  timed(state, s, "openblas sgemm", [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f,
                a.data(), s.k, b.data(), s.n, 0.0f, c.data(), s.n);
    benchmark::ClobberMemory();
  });
}
#endif

#ifdef MIXC_BENCH_DNNL
void BM_DnnlSgemm(benchmark::State &state, Shape s) {
  const std::vector<float> a = randomF32(s.m * s.k, 1),
                           b = randomF32(s.k * s.n, 2);
  std::vector<float> c(s.m * s.n);
  timed(state, s, "onednn sgemm", [&] {
    benchmark::DoNotOptimize(dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, a.data(),
                                        s.k, b.data(), s.n, 0.0f, c.data(),
                                        s.n));
    benchmark::ClobberMemory();
  });
}

void BM_DnnlS8s8s32(benchmark::State &state, Shape s) {
  const std::vector<int8_t> a = randomS8(s.m * s.k, 1),
                            b = randomS8(s.k * s.n, 2);
  std::vector<int32_t> c(s.m * s.n);
  const int32_t co = 0;
  timed(state, s, "onednn s8s8s32", [&] {
    benchmark::DoNotOptimize(
        dnnl_gemm_s8s8s32('N', 'N', 'F', s.m, s.n, s.k, 1.0f, a.data(), s.k, 0,
                          b.data(), s.n, 0, 0.0f, c.data(), s.n, &co));
    benchmark::ClobberMemory();
  });
}
#endif

void registerAll() {
  for (const Shape &s : kShapes) {
    const std::string shape = shapeName(s);
    for (int i = 0; i <= static_cast<int>(mixrt_ukernel_cpu_isa()); ++i) {
      const auto isa = static_cast<mixrt_ukernel_isa>(i);
      const std::string tag =
          std::string("/") + mixrt_ukernel_isa_name(isa) + "/" + shape;
      // The portable path is slow (software fmaf on baseline x86-64): only
      // at the smallest sizes.
      if (isa == MIXRT_UKERNEL_ISA_PORTABLE && s.m * s.n * s.k > (1 << 24))
        continue;
      for (auto [type, name] : {std::pair{MIXRT_UKERNEL_F32, "f32"},
                                std::pair{MIXRT_UKERNEL_F16, "f16"},
                                std::pair{MIXRT_UKERNEL_BF16, "bf16"}})
        benchmark::RegisterBenchmark(
            (std::string("BM_Ukernel_") + name + tag).c_str(), BM_UkFloat, type,
            isa, s)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_Ukernel_s8s8s32" + tag).c_str(),
                                   BM_UkS8, false, isa, s)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("BM_Ukernel_s8s8f32" + tag).c_str(),
                                   BM_UkS8, true, isa, s)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
#ifdef MIXC_BENCH_OPENBLAS
    benchmark::RegisterBenchmark(("BM_OpenBLAS_sgemm/" + shape).c_str(),
                                 BM_OpenBlasSgemm, s)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
#endif
#ifdef MIXC_BENCH_DNNL
    benchmark::RegisterBenchmark(("BM_oneDNN_sgemm/" + shape).c_str(),
                                 BM_DnnlSgemm, s)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_oneDNN_s8s8s32/" + shape).c_str(),
                                 BM_DnnlS8s8s32, s)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
#endif
  }
}

double get(const std::string &kernel, const Shape &s) {
  auto it = results().find(kernel + " " + shapeName(s));
  return it == results().end() ? 0.0 : it->second;
}

void printRatios() {
  const std::string best = mixrt_ukernel_isa_name(mixrt_ukernel_cpu_isa());
  std::printf("\nRatios (single thread, thread CPU time; mixrt path %s):\n",
              best.c_str());
  std::printf("%-16s %10s %10s %10s %8s | %10s %10s %8s\n", "shape",
              "mixrt_f32", "openblas", "onednn", "f32_ratio", "mixrt_s8",
              "onednn_s8", "s8_ratio");
  for (const Shape &s : kShapes) {
    const double f32 = get("mixrt f32 " + best, s);
    const double ob = get("openblas sgemm", s), dn = get("onednn sgemm", s);
    const double s8 = get("mixrt s8s8s32 " + best, s);
    const double dn8 = get("onednn s8s8s32", s);
    const double peer = std::max(ob, dn);
    std::printf("%-16s %10.1f %10.1f %10.1f %8.2f | %10.1f %10.1f %8.2f\n",
                shapeName(s).c_str(), f32, ob, dn, peer > 0 ? f32 / peer : 0.0,
                s8, dn8, dn8 > 0 ? s8 / dn8 : 0.0);
  }
  std::printf("(GOP/s; peers absent from the build print 0)\n");
}

} // namespace

int main(int argc, char **argv) {
#ifdef MIXC_BENCH_OPENBLAS
  openblas_set_num_threads(1);
#endif
#ifdef MIXC_BENCH_OPENMP
  omp_set_num_threads(1);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  registerAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  printRatios();
  return 0;
}
