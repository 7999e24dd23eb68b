//===-- f16c_reference.h - x86 F16C reference conversions -------*- C++ -*-===//
//
// The CPU's own f32 <-> f16 conversions (vcvtps2ph with round to nearest
// even, vcvtph2ps), the reference of the conversion tests.
//
//===----------------------------------------------------------------------===//

#ifndef MIXRT_TESTS_F16C_REFERENCE_H
#define MIXRT_TESTS_F16C_REFERENCE_H

#include <cstddef>
#include <cstdint>

namespace mixrt::test {

/// True if the CPU executes F16C instructions.
bool f16cAvailable();
/// _mm_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT) over `n` values.
void f16cF32ToF16(const float *src, size_t n, uint16_t *dst);
/// _mm_cvtph_ps over `n` values.
void f16cF16ToF32(const uint16_t *src, size_t n, float *dst);

} // namespace mixrt::test

#endif // MIXRT_TESTS_F16C_REFERENCE_H
