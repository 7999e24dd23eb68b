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
// and one of the f32 GEMM with weight-only int8 weights (`s8w`, B packed
// by mixrt_ukernel_pack_b_dequantized) against mixrt's f32 and f16 weights
// and the best f32 peer, at every shape (M = 4 and 16 with N = K = 4096:
// the batch sizes where reading the weight bounds the GEMM).
//
// Depthwise rows (BM_Dw_*): mixrt_ukernel_depthwise_f32 per path on the four
// MobileNet-V2 3x3 depthwise shapes (batch 1, padding 1, no bias: 32 ch
// 112x112; 96 ch 112x112 and 56x56 stride 2; 144 ch 56x56; 960 ch 7x7),
// GOP/s = 2 * outputs * taps; also 576 ch 14x14, the largest plane of the
// small-plane path, and two 5x5 stride-2 layers, padding 2: 240 ch 28x28,
// 672 ch 14x14; and two stride-1 layers of mid planes: 192 ch 28x28 3x3,
// 240 ch 28x28 5x5, padding 2), next to oneDNN's f32 convolution (groups = C)
// with src, dst and weights in the formats oneDNN picks (format_tag::any: its
// blocked nChw16c/nChw8c depthwise kernel, the fair peer) and with src and dst
// in plain NCHW (what mixrt reads and writes). The reorders into oneDNN's
// formats are not timed. The oneDNN rows of a shape run first, so each mixrt
// row also carries its ratios as counters (vs_blocked, vs_nchw); a table
// follows the GEMM one.
//
// Elementwise rows (BM_Range_*, BM_Quantize_*): the range and quantize
// passes of a dynamic int8 quantization per path, 1 and 2 threads, wall
// time (GB/s and elements/ns counters; see registerElementwise).
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
#include <oneapi/dnnl/dnnl.hpp>
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

const Shape kShapes[] = {{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024},
                         {1, 1024, 1024}, {1, 4096, 4096}, {4, 4096, 4096},
                         {16, 4096, 4096}};

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
  // Weight-only int8: B quantized per column (symmetric, scale max|b|/127).
  const std::vector<int8_t> b8 = randomS8(b.size(), 2);
  const std::vector<float> scales(s.n, 1.0f / 127.0f);
  const mixrt_status_code packStatus =
      type == MIXRT_UKERNEL_S8_DEQUANTIZED
          ? mixrt_ukernel_pack_b_dequantized(
                s.k, s.n, b8.data(), s.n, scales.data(), nullptr, packed.data())
          : mixrt_ukernel_pack_b(type, s.k, s.n, src, s.n, packed.data());
  if (packStatus != MIXRT_STATUS_OK) {
    state.SkipWithError("pack failed");
    return;
  }
  std::vector<float> c(s.m * s.n);
  const char *names[] = {"f32", "f16", "bf16", "s8", "s8w"};
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

/// A depthwise layer: C channels, H x W image, k x k window, padding k / 2
/// on every side, batch 1.
struct DwShape {
  int64_t c, h, w, stride, k = 3;
  int64_t pad() const { return k / 2; }
  int64_t oh() const { return (h + 2 * pad() - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad() - k) / stride + 1; }
  double ops() const { return 2.0 * c * oh() * ow() * k * k; }
  std::string name() const {
    return std::to_string(c) + "ch_" + std::to_string(h) + "x" +
           std::to_string(w) + "_s" + std::to_string(stride) +
           (k == 3 ? "" : "_k" + std::to_string(k));
  }
};

// The stride-2 rows: MobileNet-V2's 112 -> 56 (96 ch) and 56 -> 28 (the
// 96 ch row kept from the first version of this table), and the 5x5
// stride-2 layers of EfficientNet-B0 / MobileNet-V3 (28 -> 14 at 240 ch,
// 14 -> 7 at 672 ch); the stride-1 28x28 rows: MobileNet-V2's 192 ch
// 3x3 and EfficientNet-B0's 240 ch 5x5.
const DwShape kDwShapes[] = {
    {32, 112, 112, 1},   {96, 112, 112, 2},   {96, 56, 56, 2}, {144, 56, 56, 1},
    {240, 28, 28, 2, 5}, {672, 14, 14, 2, 5}, {960, 7, 7, 1},  {576, 14, 14, 1},
    {192, 28, 28, 1},    {240, 28, 28, 1, 5}};

std::map<std::string, double> &dwResults() {
  static std::map<std::string, double> r;
  return r;
}

template <class Fn>
double timedDw(benchmark::State &state, const DwShape &s,
               const std::string &kernel, Fn fn) {
  double seconds = 0.0;
  for (auto _ : state) {
    const double start = threadSeconds();
    fn();
    const double t = threadSeconds() - start;
    seconds += t;
    state.SetIterationTime(t);
  }
  const double gops = s.ops() * state.iterations() / seconds / 1e9;
  state.counters["GOPS"] = gops;
  double &best = dwResults()[kernel + " " + s.name()];
  best = std::max(best, gops);
  return gops;
}

void BM_UkDepthwise(benchmark::State &state, mixrt_ukernel_isa isa, DwShape s) {
  if (!forceIsa(state, isa))
    return;
  const std::vector<float> in = randomF32(s.c * s.h * s.w, 1),
                           w = randomF32(s.c * s.k * s.k, 2);
  std::vector<float> out(s.c * s.oh() * s.ow());
  const double gops = timedDw(
      state, s, std::string("mixrt ") + mixrt_ukernel_isa_name(isa), [&] {
        benchmark::DoNotOptimize(mixrt_ukernel_depthwise_f32(
            1, s.c, s.h, s.w, in.data(), s.k, s.k, w.data(), s.stride, s.stride,
            1, 1, s.pad(), s.pad(), s.pad(), s.pad(), s.oh(), s.ow(),
            out.data(), nullptr, 0));
        benchmark::ClobberMemory();
      });
  for (auto [peer, counter] : {std::pair{"onednn blocked", "vs_blocked"},
                               std::pair{"onednn nchw", "vs_nchw"}}) {
    auto it = dwResults().find(std::string(peer) + " " + s.name());
    if (it != dwResults().end() && it->second > 0)
      state.counters[counter] = gops / it->second;
  }
}

#ifdef MIXC_BENCH_DNNL
/// oneDNN's f32 depthwise convolution; `blocked`: every format
/// format_tag::any (oneDNN's choice), else src and dst NCHW.
void BM_DnnlDepthwise(benchmark::State &state, bool blocked, DwShape s) {
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  const memory::dims srcDims = {1, s.c, s.h, s.w},
                     weiDims = {s.c, 1, 1, s.k, s.k},
                     dstDims = {1, s.c, s.oh(), s.ow()},
                     strides = {s.stride, s.stride}, pad = {s.pad(), s.pad()};
  const tag act = blocked ? tag::any : tag::nchw;
  const memory::desc srcMd(srcDims, dt::f32, act),
      weiMd(weiDims, dt::f32, tag::any), dstMd(dstDims, dt::f32, act);
  const convolution_forward::primitive_desc pd(
      convolution_forward::desc(prop_kind::forward_inference,
                                algorithm::convolution_auto, srcMd, weiMd,
                                dstMd, strides, pad, pad),
      eng);
  state.SetLabel(pd.impl_info_str());
  std::vector<float> in = randomF32(s.c * s.h * s.w, 1),
                     w = randomF32(s.c * s.k * s.k, 2);
  memory userSrc({srcDims, dt::f32, tag::nchw}, eng, in.data()),
      userWei({weiDims, dt::f32, tag::goihw}, eng, w.data());
  memory src(pd.src_desc(), eng), wei(pd.weights_desc(), eng),
      dst(pd.dst_desc(), eng);
  reorder(userSrc, src).execute(strm, userSrc, src);
  reorder(userWei, wei).execute(strm, userWei, wei);
  strm.wait();
  convolution_forward conv(pd);
  timedDw(state, s, blocked ? "onednn blocked" : "onednn nchw", [&] {
    conv.execute(
        strm,
        {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    strm.wait();
    benchmark::ClobberMemory();
  });
}
#endif

void registerDepthwise() {
  for (const DwShape &s : kDwShapes) {
#ifdef MIXC_BENCH_DNNL
    for (bool blocked : {true, false})
      benchmark::RegisterBenchmark((std::string("BM_Dw_oneDNN_") +
                                    (blocked ? "blocked/" : "nchw/") + s.name())
                                       .c_str(),
                                   BM_DnnlDepthwise, blocked, s)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
#endif
    for (int i = 0; i <= static_cast<int>(mixrt_ukernel_cpu_isa()); ++i) {
      const auto isa = static_cast<mixrt_ukernel_isa>(i);
      benchmark::RegisterBenchmark((std::string("BM_Dw_mixrt/") +
                                    mixrt_ukernel_isa_name(isa) + "/" +
                                    s.name())
                                       .c_str(),
                                   BM_UkDepthwise, isa, s)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

void printDepthwiseRatios() {
  if (dwResults().empty())
    return;
  std::printf("\nDepthwise (GOP/s; ratio = mixrt path / oneDNN):\n");
  std::printf("%-22s %-12s %8s %9s %9s %10s %8s\n", "shape", "path", "mixrt",
              "blocked", "nchw", "vs_blocked", "vs_nchw");
  for (const DwShape &s : kDwShapes) {
    const auto get = [&](const std::string &k) {
      auto it = dwResults().find(k + " " + s.name());
      return it == dwResults().end() ? 0.0 : it->second;
    };
    const double bl = get("onednn blocked"), nc = get("onednn nchw");
    for (int i = 0; i <= static_cast<int>(mixrt_ukernel_cpu_isa()); ++i) {
      const std::string path =
          mixrt_ukernel_isa_name(static_cast<mixrt_ukernel_isa>(i));
      const double m = get("mixrt " + path);
      if (m == 0.0)
        continue;
      std::printf("%-22s %-12s %8.1f %9.1f %9.1f %10.2f %8.2f\n",
                  s.name().c_str(), path.c_str(), m, bl, nc,
                  bl > 0 ? m / bl : 0.0, nc > 0 ? m / nc : 0.0);
    }
  }
}

// Elementwise rows (BM_Range_*, BM_Quantize_*): the two passes of a dynamic
// int8 quantization outside the GEMM, mixrt_ukernel_range_f32 and
// mixrt_ukernel_quantize_f32_s8, on 64K, 256K and 1M floats in [-1, 1) per
// path, on 1 and 2 threads (mixrt_set_num_threads). Wall-clock time (the
// second thread's work counts), GB/s of f32 read (range) or f32 read + int8
// written (quantize), and elements/ns.

double wallSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

const int64_t kEltSizes[] = {64 << 10, 256 << 10, 1 << 20};

template <class Fn>
void timedElt(benchmark::State &state, int64_t n, double bytesPerElt,
              int32_t threads, Fn fn) {
  if (mixrt_set_num_threads(threads) != MIXRT_STATUS_OK) {
    state.SkipWithError("mixrt_set_num_threads failed");
    return;
  }
  fn(); // warm the pool and the caches
  double seconds = 0.0;
  for (auto _ : state) {
    const double start = wallSeconds();
    fn();
    const double t = wallSeconds() - start;
    seconds += t;
    state.SetIterationTime(t);
  }
  (void)mixrt_set_num_threads(1);
  const double perIter = seconds / static_cast<double>(state.iterations());
  state.counters["GBps"] = bytesPerElt * static_cast<double>(n) / perIter / 1e9;
  state.counters["elt_per_ns"] = static_cast<double>(n) / perIter / 1e9;
}

void BM_Range(benchmark::State &state, mixrt_ukernel_isa isa, int64_t n,
              int32_t threads) {
  if (!forceIsa(state, isa))
    return;
  const std::vector<float> x = randomF32(static_cast<size_t>(n), 7);
  float lo = 0.0f, hi = 0.0f;
  timedElt(state, n, 4.0, threads, [&] {
    benchmark::DoNotOptimize(mixrt_ukernel_range_f32(x.data(), n, &lo, &hi));
    benchmark::ClobberMemory();
  });
}

void BM_Quantize(benchmark::State &state, mixrt_ukernel_isa isa, int64_t n,
                 int32_t threads) {
  if (!forceIsa(state, isa))
    return;
  const std::vector<float> x = randomF32(static_cast<size_t>(n), 8);
  std::vector<int8_t> q(static_cast<size_t>(n));
  timedElt(state, n, 5.0, threads, [&] {
    benchmark::DoNotOptimize(mixrt_ukernel_quantize_f32_s8(
        x.data(), n, 1.0f / 127.0f, 3, -128, q.data()));
    benchmark::ClobberMemory();
  });
}

void registerElementwise() {
  for (int64_t n : kEltSizes)
    for (int i = 0; i <= static_cast<int>(mixrt_ukernel_cpu_isa()); ++i) {
      const auto isa = static_cast<mixrt_ukernel_isa>(i);
      for (int32_t threads : {1, 2}) {
        const std::string tag = std::string("/") + mixrt_ukernel_isa_name(isa) +
                                "/" + std::to_string(n) +
                                "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(("BM_Range" + tag).c_str(), BM_Range, isa,
                                     n, threads)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("BM_Quantize" + tag).c_str(), BM_Quantize,
                                     isa, n, threads)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
    }
}

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
                                std::pair{MIXRT_UKERNEL_BF16, "bf16"},
                                std::pair{MIXRT_UKERNEL_S8_DEQUANTIZED, "s8w"}})
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
  if (results().empty())
    return;
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
  // Weight-only int8 (int8 weights dequantized in the f32 kernel): the
  // same f32 GEMM reading a quarter of the weight bytes; against mixrt's
  // f32 and f16 weights and the best f32 peer (no peer has this kernel).
  std::printf("\nWeight-only int8 (mixrt s8w; GOP/s, ratios = s8w / other):\n");
  std::printf("%-16s %10s %10s %10s %10s %8s %8s %8s\n", "shape", "mixrt_s8w",
              "mixrt_f32", "mixrt_f16", "best_peer", "vs_f32", "vs_f16",
              "vs_peer");
  for (const Shape &s : kShapes) {
    const double w8 = get("mixrt s8w " + best, s);
    const double f32 = get("mixrt f32 " + best, s),
                 f16 = get("mixrt f16 " + best, s);
    const double peer =
        std::max(get("openblas sgemm", s), get("onednn sgemm", s));
    std::printf("%-16s %10.1f %10.1f %10.1f %10.1f %8.2f %8.2f %8.2f\n",
                shapeName(s).c_str(), w8, f32, f16, peer,
                f32 > 0 ? w8 / f32 : 0.0, f16 > 0 ? w8 / f16 : 0.0,
                peer > 0 ? w8 / peer : 0.0);
  }
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
  registerDepthwise();
  registerElementwise();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  printRatios();
  printDepthwiseRatios();
  return 0;
}
