//===-- convert_sweep_test.cpp - Exhaustive f32 -> f16/bf16 sweeps --------===//
//
// Every one of the 2^32 f32 bit patterns (both signs, NaNs, subnormals)
// through the bulk conversions, on each SIMD path, against the CPU's F16C
// (f16) or an independent integer reference (bf16). The range is split over
// the hardware threads and checked in blocks.
//
//===----------------------------------------------------------------------===//

#include "f16c_reference.h"
#include "test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

using namespace mixrt;
using namespace mixrt::test;

namespace {

using Converter = std::function<void(const float *, size_t, uint16_t *)>;

/// First mismatch found by a sweep (input bits, expected, actual).
struct Mismatch {
  bool found = false;
  uint32_t input = 0;
  uint16_t expected = 0;
  uint16_t actual = 0;
};

/// Converts all 2^32 patterns with `impl` and `reference` and returns the
/// mismatch with the smallest input, if any.
Mismatch sweep(const Converter &impl, const Converter &reference) {
  return forAllFloatBits<Mismatch>(
      [&](const float *in, size_t n, uint32_t, Mismatch &m) {
        std::vector<uint16_t> got(n), want(n);
        impl(in, n, got.data());
        reference(in, n, want.data());
        for (size_t i = 0; i < n; ++i)
          if (got[i] != want[i]) {
            m = {true, bitsOf(in[i]), want[i], got[i]};
            return true;
          }
        return false;
      });
}

/// Independent f32 -> bf16 reference in integer arithmetic: keep the top 16
/// bits, then round up if the dropped half is above 0x8000, or equal to it
/// with an odd kept part. NaNs: top bits with the quiet bit set.
void referenceF32ToBF16(const float *src, size_t n, uint16_t *dst) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t x = bitsOf(src[i]);
    const uint32_t kept = x >> 16;
    const uint32_t dropped = x & 0xffffu;
    if ((x & 0x7fffffffu) > 0x7f800000u) {
      dst[i] = static_cast<uint16_t>(kept | 0x0040u);
      continue;
    }
    const bool up = dropped > 0x8000u || (dropped == 0x8000u && (kept & 1u));
    // Rounding up the largest finite magnitude carries into inf (0x7f80).
    dst[i] = static_cast<uint16_t>(kept + (up ? 1u : 0u));
  }
}

Converter bulk(mixrt_status_code (*fn)(const float *, int64_t, uint16_t *)) {
  return [fn](const float *src, size_t n, uint16_t *dst) {
    (void)fn(src, static_cast<int64_t>(n), dst);
  };
}

void checkSweep(const Mismatch &m) {
  INFO("input 0x" << std::hex << m.input << " expected 0x" << m.expected
                  << " got 0x" << m.actual);
  CHECK_FALSE(m.found);
}

} // namespace

TEST_CASE("sweep.f32_to_f16.avx2_vs_f16c", "[sweep]") {
  if (!f16cAvailable() || CpuSimdLevel() != SimdLevel::kAvx2) {
    WARN("SKIPPED: this CPU lacks F16C/AVX2, the reference is unavailable");
    return;
  }
  SimdLevelScope scope(SimdLevel::kAvx2);
  REQUIRE(scope.ok());
  checkSweep(sweep(bulk(mixrt_f32_to_f16_array), f16cF32ToF16));
}

TEST_CASE("sweep.f32_to_f16.portable_vs_f16c", "[sweep]") {
  if (!f16cAvailable()) {
    WARN("SKIPPED: this CPU lacks F16C, the reference is unavailable");
    return;
  }
  SimdLevelScope scope(SimdLevel::kPortable);
  REQUIRE(scope.ok());
  checkSweep(sweep(bulk(mixrt_f32_to_f16_array), f16cF32ToF16));
}

TEST_CASE("sweep.f32_to_f16.scalar_vs_f16c", "[sweep]") {
  if (!f16cAvailable()) {
    WARN("SKIPPED: this CPU lacks F16C, the reference is unavailable");
    return;
  }
  const Converter scalar = [](const float *src, size_t n, uint16_t *dst) {
    for (size_t i = 0; i < n; ++i)
      dst[i] = mixrt_f32_to_f16(src[i]);
  };
  checkSweep(sweep(scalar, f16cF32ToF16));
}

TEST_CASE("sweep.f32_to_bf16.avx2_vs_reference", "[sweep]") {
  if (CpuSimdLevel() != SimdLevel::kAvx2) {
    WARN("SKIPPED: this CPU lacks AVX2");
    return;
  }
  SimdLevelScope scope(SimdLevel::kAvx2);
  REQUIRE(scope.ok());
  checkSweep(sweep(bulk(mixrt_f32_to_bf16_array), referenceF32ToBF16));
}

TEST_CASE("sweep.f32_to_bf16.portable_vs_reference", "[sweep]") {
  SimdLevelScope scope(SimdLevel::kPortable);
  REQUIRE(scope.ok());
  checkSweep(sweep(bulk(mixrt_f32_to_bf16_array), referenceF32ToBF16));
}

TEST_CASE("sweep.f32_to_bf16.scalar_vs_reference", "[sweep]") {
  const Converter scalar = [](const float *src, size_t n, uint16_t *dst) {
    for (size_t i = 0; i < n; ++i)
      dst[i] = mixrt_f32_to_bf16(src[i]);
  };
  checkSweep(sweep(scalar, referenceF32ToBF16));
}
