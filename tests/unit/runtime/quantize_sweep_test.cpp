//===-- quantize_sweep_test.cpp - Exhaustive f32 -> int8 quantize sweeps -===//
//
// Every one of the 2^32 f32 bit patterns through
// mixrt_ukernel_quantize_f32_s8 on each vector path (AVX2, AVX-512), at a
// handful of scales covering both ways the vector paths get x / scale
// without a division (one and two Markstein steps), against the scalar
// division reference. The range is split over the hardware threads.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace mixrt::test;

namespace {

/// roundeven(x / scale) + zp, clamped to [qmin, 127], NaN -> zp (the
/// quantize lowering's ops, as ukernel_test.cpp's reference).
int8_t reference(float x, float scale, int32_t zp, int32_t qmin) {
  const float r = std::nearbyint(x / scale) + static_cast<float>(zp);
  if (std::isnan(r))
    return static_cast<int8_t>(zp);
  float c = r < static_cast<float>(qmin) ? static_cast<float>(qmin) : r;
  c = c > 127.0f ? 127.0f : c;
  return static_cast<int8_t>(static_cast<int32_t>(c));
}

struct Mismatch {
  bool found = false;
  uint32_t input = 0;
  int expected = 0, actual = 0;
};

/// All 2^32 inputs on the current path; the mismatch with the smallest
/// input of the first failing block of each thread, if any.
Mismatch sweep(float scale, int32_t zp, int32_t qmin) {
  return forAllFloatBits<Mismatch>(
      [&](const float *in, size_t n, uint32_t base, Mismatch &m) {
        std::vector<int8_t> got(n);
        (void)mixrt_ukernel_quantize_f32_s8(in, static_cast<int64_t>(n), scale,
                                            zp, qmin, got.data());
        for (size_t i = 0; i < n; ++i) {
          const int8_t want = reference(in[i], scale, zp, qmin);
          if (got[i] != want) {
            m = {true, base + static_cast<uint32_t>(i), want, got[i]};
            return true;
          }
        }
        return false;
      });
}

void sweepPaths(float scale, int32_t zp, int32_t qmin) {
  for (mixrt_ukernel_isa isa :
       {MIXRT_UKERNEL_ISA_AVX2, MIXRT_UKERNEL_ISA_AVX512}) {
    if (isa > mixrt_ukernel_cpu_isa()) {
      WARN("SKIPPED: this CPU lacks " << mixrt_ukernel_isa_name(isa));
      continue;
    }
    IsaScope scope(isa);
    const Mismatch m = sweep(scale, zp, qmin);
    INFO("path " << mixrt_ukernel_isa_name(isa) << " scale " << std::hexfloat
                 << scale << std::defaultfloat << " zp " << zp << " qmin "
                 << qmin << ": input 0x" << std::hex << m.input << std::dec
                 << " expected " << m.expected << " got " << m.actual);
    CHECK_FALSE(m.found);
  }
}

/// One scale on both paths; checks that `scale` takes the vector paths'
/// expected way to the quotient (1 or 2 Markstein steps, as
/// mixrt_uk_quant_mode in the core).
void sweepScale(float scale, int mode, int32_t zp, int32_t qmin) {
  const float y = 1.0f / scale;
  const double e = 1.0 - static_cast<double>(scale) * static_cast<double>(y);
  CHECK((e <= 0x1p-25 && e >= -0x1p-25 ? 1 : 2) == mode);
  sweepPaths(scale, zp, qmin);
}

} // namespace

// One test case per scale (each about 25 s on 2 cores): 1 (an exact
// reciprocal), 0.1, 1/127, 1/3 and 7.9e-3 (one Markstein step), 2^-7 -
// 2^-31 (an all-ones significand), 0.0078, 0.011 and 7 (two steps: |1 -
// scale * RN(1/scale)| > 2^-25).
TEST_CASE("sweep.quantize_f32_s8.scale_1", "[sweep]") {
  sweepScale(1.0f, 1, 0, -128);
}
TEST_CASE("sweep.quantize_f32_s8.scale_0.1", "[sweep]") {
  sweepScale(0.1f, 1, 3, -128);
}
TEST_CASE("sweep.quantize_f32_s8.scale_1_over_127", "[sweep]") {
  sweepScale(1.0f / 127.0f, 1, 0, -127);
}
TEST_CASE("sweep.quantize_f32_s8.scale_1_over_3", "[sweep]") {
  sweepScale(1.0f / 3.0f, 1, -5, -128);
}
TEST_CASE("sweep.quantize_f32_s8.scale_7.9e-3", "[sweep]") {
  sweepScale(7.9e-3f, 1, 127, -127);
}
TEST_CASE("sweep.quantize_f32_s8.scale_0x1.fffffep-8", "[sweep]") {
  sweepScale(0x1.fffffep-8f, 2, 0, -128);
}
TEST_CASE("sweep.quantize_f32_s8.scale_0.0078", "[sweep]") {
  sweepScale(0.0078f, 2, -128, -128);
}
TEST_CASE("sweep.quantize_f32_s8.scale_0.011", "[sweep]") {
  sweepScale(0.011f, 2, 1, -127);
}
TEST_CASE("sweep.quantize_f32_s8.scale_7", "[sweep]") {
  sweepScale(7.0f, 2, 0, -128);
}
