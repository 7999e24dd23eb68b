//===-- bench_convert.cpp - Bulk conversion throughput --------------------===//
//
// Elements per second of every bulk conversion on each SIMD path
// (arg 0: 0 = portable, 1 = AVX2/F16C; arg 1: element count).
//
//===----------------------------------------------------------------------===//

#include "mixrt/mixrt.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

/// Sets the SIMD level from the first argument; false (and a skip) if the
/// CPU lacks it.
bool setLevel(benchmark::State &state) {
  const auto level = static_cast<mixrt_simd_level>(state.range(0));
  if (mixrt_set_simd_level(level) != MIXRT_STATUS_OK) {
    state.SkipWithError("SIMD level not available on this CPU");
    return false;
  }
  state.SetLabel(level == MIXRT_SIMD_AVX2 ? "avx2" : "portable");
  return true;
}

template <class Src> std::vector<Src> randomData(size_t n) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> dist(-60000.0, 60000.0);
  std::vector<Src> v(n);
  for (Src &x : v)
    x = static_cast<Src>(dist(rng));
  return v;
}

template <class Src, class Dst,
          mixrt_status_code (*Fn)(const Src *, int64_t, Dst *)>
void BM_Convert(benchmark::State &state) {
  if (!setLevel(state))
    return;
  const int64_t n = state.range(1);
  std::vector<Src> src;
  if constexpr (std::is_same_v<Src, uint16_t>) {
    src.resize(n);
    for (int64_t i = 0; i < n; ++i)
      src[i] = static_cast<uint16_t>(i * 7919);
  } else {
    src = randomData<Src>(n);
  }
  std::vector<Dst> dst(n);
  for (auto _ : state) {
    if (Fn(src.data(), n, dst.data()) != MIXRT_STATUS_OK)
      state.SkipWithError("conversion failed");
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * (sizeof(Src) + sizeof(Dst)));
}

void args(benchmark::internal::Benchmark *b) {
  for (int level : {0, 1})
    b->Args({level, 1 << 16});
}

} // namespace

BENCHMARK_TEMPLATE(BM_Convert, float, uint16_t, mixrt_f32_to_f16_array)
    ->Name("f32_to_f16")
    ->Apply(args);
BENCHMARK_TEMPLATE(BM_Convert, uint16_t, float, mixrt_f16_to_f32_array)
    ->Name("f16_to_f32")
    ->Apply(args);
BENCHMARK_TEMPLATE(BM_Convert, float, uint16_t, mixrt_f32_to_bf16_array)
    ->Name("f32_to_bf16")
    ->Apply(args);
BENCHMARK_TEMPLATE(BM_Convert, uint16_t, float, mixrt_bf16_to_f32_array)
    ->Name("bf16_to_f32")
    ->Apply(args);
BENCHMARK_TEMPLATE(BM_Convert, double, uint16_t, mixrt_f64_to_f16_array)
    ->Name("f64_to_f16")
    ->Apply(args);
BENCHMARK_TEMPLATE(BM_Convert, double, uint16_t, mixrt_f64_to_bf16_array)
    ->Name("f64_to_bf16")
    ->Apply(args);
BENCHMARK_TEMPLATE(BM_Convert, float, uint16_t, mixrt_f32_to_f16_array_checked)
    ->Name("f32_to_f16_checked")
    ->Apply(args);

BENCHMARK_MAIN();
