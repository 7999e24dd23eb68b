//===-- convert.cpp - f32/f64 <-> f16/bf16 conversions --------------------===//
//
// Scalar conversions (the rounding core of float_bits.h), bulk conversions
// with an AVX2/F16C path selected at run time and a portable path built on
// the same scalar core, and checked variants.
//
//===----------------------------------------------------------------------===//

#include "float_bits.h"
#include "internal.h"

#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mixrt {
namespace {

using detail::BF16Format;
using detail::F16Format;

//===----------------------------------------------------------------------===//
// Portable bulk paths: the scalar core in a loop.
//===----------------------------------------------------------------------===//

template <class Fmt, class T>
void narrowPortable(const T *src, int64_t count, uint16_t *dst) {
  for (int64_t i = 0; i < count; ++i)
    dst[i] = detail::narrow<Fmt>(src[i]);
}

template <class Fmt>
void widenPortable(const uint16_t *src, int64_t count, float *dst) {
  for (int64_t i = 0; i < count; ++i)
    dst[i] = detail::widen<Fmt, float>(src[i]);
}

//===----------------------------------------------------------------------===//
// AVX2 + F16C paths. Tails go through the scalar core.
//===----------------------------------------------------------------------===//

#if defined(__x86_64__)

__attribute__((target("avx2,f16c"))) void
f32ToF16Avx2(const float *src, int64_t count, uint16_t *dst) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 x = _mm256_loadu_ps(src + i);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i),
                     _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT));
  }
  narrowPortable<F16Format>(src + i, count - i, dst + i);
}

__attribute__((target("avx2,f16c"))) void
f16ToF32Avx2(const uint16_t *src, int64_t count, float *dst) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i h =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  widenPortable<F16Format>(src + i, count - i, dst + i);
}

/// Rounds 8 f32 bit patterns to bf16 in the low 16 bits of each lane:
/// (bits + 0x7fff + lsb) >> 16 is RNE (a carry rolls into the exponent and
/// up to inf); NaNs become (bits >> 16) | quiet bit.
__attribute__((target("avx2"))) inline __m256i f32ToBF16Lanes(__m256i bits) {
  const __m256i abs = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
  const __m256i isNan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));
  const __m256i lsb =
      _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb),
      16);
  const __m256i nan =
      _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(rounded, nan, isNan);
}

__attribute__((target("avx2"))) void
f32ToBF16Avx2(const float *src, int64_t count, uint16_t *dst) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m256i lo = f32ToBF16Lanes(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i)));
    const __m256i hi = f32ToBF16Lanes(
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + i + 8)));
    // packus works per 128-bit lane; restore the element order.
    const __m256i packed =
        _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i), packed);
  }
  narrowPortable<BF16Format>(src + i, count - i, dst + i);
}

__attribute__((target("avx2"))) void bf16ToF32Avx2(const uint16_t *src,
                                                   int64_t count, float *dst) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256i h = _mm256_cvtepu16_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
    const __m256i bits = _mm256_slli_epi32(h, 16);
    const __m256i abs = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
    const __m256i isNan =
        _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));
    const __m256i quiet =
        _mm256_and_si256(isNan, _mm256_set1_epi32(0x00400000));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(dst + i),
                        _mm256_or_si256(bits, quiet));
  }
  widenPortable<BF16Format>(src + i, count - i, dst + i);
}

#endif // __x86_64__

//===----------------------------------------------------------------------===//
// Argument checks and checked conversions
//===----------------------------------------------------------------------===//

template <class Src, class Dst>
absl::Status checkBulkArgs(absl::string_view op, const Src *src, int64_t count,
                           const Dst *dst) {
  if (absl::Status s = detail::checkNonNegative(op, count, "count"); !s.ok())
    return s;
  if (absl::Status s = detail::checkBytes(op, "count", count,
                                          std::max(sizeof(Src), sizeof(Dst)));
      !s.ok())
    return s;
  if (absl::Status s = detail::checkPtr(op, src, "src", count > 0); !s.ok())
    return s;
  return detail::checkPtr(op, dst, "dst", count > 0);
}

template <class Src, class Dst>
absl::Status checkSpans(absl::string_view op, absl::Span<const Src> src,
                        absl::Span<Dst> dst) {
  if (src.size() != dst.size())
    return detail::invalidArgument(op, ": dst has ", dst.size(),
                                   " elements, src has ", src.size());
  return absl::OkStatus();
}

/// Finds the first element that is non-finite in `src` or became inf in
/// `dst` after a narrowing conversion to `Fmt`.
template <class Fmt, class T>
absl::Status checkNarrowed(absl::string_view op, absl::string_view fmtName,
                           const T *src, int64_t count, const uint16_t *dst) {
  for (int64_t i = 0; i < count; ++i) {
    if (!detail::isNonFinite16<Fmt>(dst[i]))
      continue;
    if (!std::isfinite(src[i]))
      return detail::invalidArgument(op, ": element ", i, " (", src[i],
                                     ") is not finite");
    return detail::outOfRange(op, ": element ", i, " (", src[i], ") overflows ",
                              fmtName, " to infinity");
  }
  return absl::OkStatus();
}

/// Validates the arguments of a bulk conversion and runs it.
template <class Src, class Dst>
absl::Status runBulk(absl::string_view op,
                     void (*fn)(const Src *, int64_t, Dst *), const Src *src,
                     int64_t count, Dst *dst) {
  if (absl::Status s = checkBulkArgs(op, src, count, dst); !s.ok())
    return s;
  fn(src, count, dst);
  return absl::OkStatus();
}

template <class Fmt, class T>
absl::Status runNarrowChecked(absl::string_view op, absl::string_view fmtName,
                              void (*fn)(const T *, int64_t, uint16_t *),
                              const T *src, int64_t count, uint16_t *dst) {
  if (absl::Status s = runBulk(op, fn, src, count, dst); !s.ok())
    return s;
  return checkNarrowed<Fmt>(op, fmtName, src, count, dst);
}

} // namespace

//===----------------------------------------------------------------------===//
// Dispatch (shared with the reduced GEMM through internal.h)
//===----------------------------------------------------------------------===//

namespace detail {

void f32ToF16Bulk(const float *src, int64_t count, uint16_t *dst) {
#if defined(__x86_64__)
  if (useAvx2())
    return f32ToF16Avx2(src, count, dst);
#endif
  narrowPortable<F16Format>(src, count, dst);
}

void f16ToF32Bulk(const uint16_t *src, int64_t count, float *dst) {
#if defined(__x86_64__)
  if (useAvx2())
    return f16ToF32Avx2(src, count, dst);
#endif
  widenPortable<F16Format>(src, count, dst);
}

void f32ToBF16Bulk(const float *src, int64_t count, uint16_t *dst) {
#if defined(__x86_64__)
  if (useAvx2())
    return f32ToBF16Avx2(src, count, dst);
#endif
  narrowPortable<BF16Format>(src, count, dst);
}

void bf16ToF32Bulk(const uint16_t *src, int64_t count, float *dst) {
#if defined(__x86_64__)
  if (useAvx2())
    return bf16ToF32Avx2(src, count, dst);
#endif
  widenPortable<BF16Format>(src, count, dst);
}

void f64ToF16Bulk(const double *src, int64_t count, uint16_t *dst) {
  // No hardware converts f64 -> f16 in one rounding; the portable core does.
  narrowPortable<F16Format>(src, count, dst);
}

void f64ToBF16Bulk(const double *src, int64_t count, uint16_t *dst) {
  narrowPortable<BF16Format>(src, count, dst);
}

} // namespace detail

//===----------------------------------------------------------------------===//
// C++ API
//===----------------------------------------------------------------------===//

uint16_t F32ToF16(float value) { return detail::narrow<F16Format>(value); }
float F16ToF32(uint16_t value) {
  return detail::widen<F16Format, float>(value);
}
uint16_t F32ToBF16(float value) { return detail::narrow<BF16Format>(value); }
float BF16ToF32(uint16_t value) {
  return detail::widen<BF16Format, float>(value);
}
uint16_t F64ToF16(double value) { return detail::narrow<F16Format>(value); }
uint16_t F64ToBF16(double value) { return detail::narrow<BF16Format>(value); }
double F16ToF64(uint16_t value) {
  return detail::widen<F16Format, double>(value);
}
double BF16ToF64(uint16_t value) {
  return detail::widen<BF16Format, double>(value);
}

absl::Status F32ToF16(absl::Span<const float> src, absl::Span<uint16_t> dst) {
  if (absl::Status s = checkSpans("f32_to_f16", src, dst); !s.ok())
    return s;
  return runBulk("f32_to_f16", detail::f32ToF16Bulk, src.data(), src.size(),
                 dst.data());
}
absl::Status F16ToF32(absl::Span<const uint16_t> src, absl::Span<float> dst) {
  if (absl::Status s = checkSpans("f16_to_f32", src, dst); !s.ok())
    return s;
  return runBulk("f16_to_f32", detail::f16ToF32Bulk, src.data(), src.size(),
                 dst.data());
}
absl::Status F32ToBF16(absl::Span<const float> src, absl::Span<uint16_t> dst) {
  if (absl::Status s = checkSpans("f32_to_bf16", src, dst); !s.ok())
    return s;
  return runBulk("f32_to_bf16", detail::f32ToBF16Bulk, src.data(), src.size(),
                 dst.data());
}
absl::Status BF16ToF32(absl::Span<const uint16_t> src, absl::Span<float> dst) {
  if (absl::Status s = checkSpans("bf16_to_f32", src, dst); !s.ok())
    return s;
  return runBulk("bf16_to_f32", detail::bf16ToF32Bulk, src.data(), src.size(),
                 dst.data());
}
absl::Status F64ToF16(absl::Span<const double> src, absl::Span<uint16_t> dst) {
  if (absl::Status s = checkSpans("f64_to_f16", src, dst); !s.ok())
    return s;
  return runBulk("f64_to_f16", detail::f64ToF16Bulk, src.data(), src.size(),
                 dst.data());
}
absl::Status F64ToBF16(absl::Span<const double> src, absl::Span<uint16_t> dst) {
  if (absl::Status s = checkSpans("f64_to_bf16", src, dst); !s.ok())
    return s;
  return runBulk("f64_to_bf16", detail::f64ToBF16Bulk, src.data(), src.size(),
                 dst.data());
}

absl::Status F32ToF16Checked(absl::Span<const float> src,
                             absl::Span<uint16_t> dst) {
  if (absl::Status s = checkSpans("f32_to_f16_checked", src, dst); !s.ok())
    return s;
  return runNarrowChecked<F16Format>("f32_to_f16_checked", "f16",
                                     detail::f32ToF16Bulk, src.data(),
                                     src.size(), dst.data());
}
absl::Status F32ToBF16Checked(absl::Span<const float> src,
                              absl::Span<uint16_t> dst) {
  if (absl::Status s = checkSpans("f32_to_bf16_checked", src, dst); !s.ok())
    return s;
  return runNarrowChecked<BF16Format>("f32_to_bf16_checked", "bf16",
                                      detail::f32ToBF16Bulk, src.data(),
                                      src.size(), dst.data());
}
absl::Status F64ToF16Checked(absl::Span<const double> src,
                             absl::Span<uint16_t> dst) {
  if (absl::Status s = checkSpans("f64_to_f16_checked", src, dst); !s.ok())
    return s;
  return runNarrowChecked<F16Format>("f64_to_f16_checked", "f16",
                                     detail::f64ToF16Bulk, src.data(),
                                     src.size(), dst.data());
}
absl::Status F64ToBF16Checked(absl::Span<const double> src,
                              absl::Span<uint16_t> dst) {
  if (absl::Status s = checkSpans("f64_to_bf16_checked", src, dst); !s.ok())
    return s;
  return runNarrowChecked<BF16Format>("f64_to_bf16_checked", "bf16",
                                      detail::f64ToBF16Bulk, src.data(),
                                      src.size(), dst.data());
}

} // namespace mixrt

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

using mixrt::detail::guardC;

extern "C" {

uint16_t mixrt_f32_to_f16(float value) { return mixrt::F32ToF16(value); }
float mixrt_f16_to_f32(uint16_t value) { return mixrt::F16ToF32(value); }
uint16_t mixrt_f32_to_bf16(float value) { return mixrt::F32ToBF16(value); }
float mixrt_bf16_to_f32(uint16_t value) { return mixrt::BF16ToF32(value); }
uint16_t mixrt_f64_to_f16(double value) { return mixrt::F64ToF16(value); }
uint16_t mixrt_f64_to_bf16(double value) { return mixrt::F64ToBF16(value); }
double mixrt_f16_to_f64(uint16_t value) { return mixrt::F16ToF64(value); }
double mixrt_bf16_to_f64(uint16_t value) { return mixrt::BF16ToF64(value); }

mixrt_status_code mixrt_f32_to_f16_array(const float *src, int64_t count,
                                         uint16_t *out_dst) {
  return guardC([&] {
    return mixrt::runBulk("f32_to_f16_array", mixrt::detail::f32ToF16Bulk, src,
                          count, out_dst);
  });
}
mixrt_status_code mixrt_f16_to_f32_array(const uint16_t *src, int64_t count,
                                         float *out_dst) {
  return guardC([&] {
    return mixrt::runBulk("f16_to_f32_array", mixrt::detail::f16ToF32Bulk, src,
                          count, out_dst);
  });
}
mixrt_status_code mixrt_f32_to_bf16_array(const float *src, int64_t count,
                                          uint16_t *out_dst) {
  return guardC([&] {
    return mixrt::runBulk("f32_to_bf16_array", mixrt::detail::f32ToBF16Bulk,
                          src, count, out_dst);
  });
}
mixrt_status_code mixrt_bf16_to_f32_array(const uint16_t *src, int64_t count,
                                          float *out_dst) {
  return guardC([&] {
    return mixrt::runBulk("bf16_to_f32_array", mixrt::detail::bf16ToF32Bulk,
                          src, count, out_dst);
  });
}
mixrt_status_code mixrt_f64_to_f16_array(const double *src, int64_t count,
                                         uint16_t *out_dst) {
  return guardC([&] {
    return mixrt::runBulk("f64_to_f16_array", mixrt::detail::f64ToF16Bulk, src,
                          count, out_dst);
  });
}
mixrt_status_code mixrt_f64_to_bf16_array(const double *src, int64_t count,
                                          uint16_t *out_dst) {
  return guardC([&] {
    return mixrt::runBulk("f64_to_bf16_array", mixrt::detail::f64ToBF16Bulk,
                          src, count, out_dst);
  });
}

mixrt_status_code mixrt_f32_to_f16_array_checked(const float *src,
                                                 int64_t count,
                                                 uint16_t *out_dst) {
  return guardC([&] {
    return mixrt::runNarrowChecked<mixrt::detail::F16Format>(
        "f32_to_f16_array_checked", "f16", mixrt::detail::f32ToF16Bulk, src,
        count, out_dst);
  });
}
mixrt_status_code mixrt_f32_to_bf16_array_checked(const float *src,
                                                  int64_t count,
                                                  uint16_t *out_dst) {
  return guardC([&] {
    return mixrt::runNarrowChecked<mixrt::detail::BF16Format>(
        "f32_to_bf16_array_checked", "bf16", mixrt::detail::f32ToBF16Bulk, src,
        count, out_dst);
  });
}
mixrt_status_code mixrt_f64_to_f16_array_checked(const double *src,
                                                 int64_t count,
                                                 uint16_t *out_dst) {
  return guardC([&] {
    return mixrt::runNarrowChecked<mixrt::detail::F16Format>(
        "f64_to_f16_array_checked", "f16", mixrt::detail::f64ToF16Bulk, src,
        count, out_dst);
  });
}
mixrt_status_code mixrt_f64_to_bf16_array_checked(const double *src,
                                                  int64_t count,
                                                  uint16_t *out_dst) {
  return guardC([&] {
    return mixrt::runNarrowChecked<mixrt::detail::BF16Format>(
        "f64_to_bf16_array_checked", "bf16", mixrt::detail::f64ToBF16Bulk, src,
        count, out_dst);
  });
}

} // extern "C"
