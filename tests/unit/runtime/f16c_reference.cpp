//===-- f16c_reference.cpp - x86 F16C reference conversions ---------------===//
//
// Compiled with -mf16c; only call after f16cAvailable().
//
//===----------------------------------------------------------------------===//

#include "f16c_reference.h"

#include <cstring>
#include <immintrin.h>

namespace mixrt::test {

bool f16cAvailable() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("f16c");
}

void f16cF32ToF16(const float *src, size_t n, uint16_t *dst) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128i h =
        _mm_cvtps_ph(_mm_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storel_epi64(reinterpret_cast<__m128i *>(dst + i), h);
  }
  for (; i < n; ++i)
    dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
}

void f16cF16ToF32(const uint16_t *src, size_t n, float *dst) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = _cvtsh_ss(src[i]);
}

} // namespace mixrt::test
