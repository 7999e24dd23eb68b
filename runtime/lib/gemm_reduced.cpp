//===-- gemm_reduced.cpp - FP16/BF16 GEMM with f32 accumulation -----------===//
//
// Operands are rounded RNE to the 16-bit format and widened exactly to f32
// once, with the bulk conversions (F16C/AVX2 where available, else the
// rounding core of float_bits.h), then packed. Every output then
// runs acc = fmaf(a[m][k], b[k][n], acc) for k ascending from acc = 0. The
// AVX2 kernel vectorizes across n (one lane per output column) with
// vfmadd231ps, so each output keeps exactly that order and both paths give
// identical bits. The f32 accumulator is converted once at the end.
//
//===----------------------------------------------------------------------===//

#include "float_bits.h"
#include "gemm_common.h"
#include "internal.h"

#include <cmath>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mixrt {
namespace {

using detail::kGemmMr;
using detail::kGemmNr;

//===----------------------------------------------------------------------===//
// Micro-kernels: C[Mr][Nr] (leading dimension ldc, holding the accumulators
// so far) += A panel [kc][Mr] x B panel [kc][Nr], one fma per k in
// ascending order.
//===----------------------------------------------------------------------===//

void kernelF32Portable(int64_t kc, const float *a, const float *b, float *c,
                       int64_t ldc) {
  for (int64_t kk = 0; kk < kc; ++kk, a += kGemmMr, b += kGemmNr)
    for (int r = 0; r < kGemmMr; ++r)
      for (int j = 0; j < kGemmNr; ++j)
        c[r * ldc + j] = std::fma(a[r], b[j], c[r * ldc + j]);
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void kernelF32Avx2(int64_t kc,
                                                       const float *a,
                                                       const float *b, float *c,
                                                       int64_t ldc) {
  static_assert(kGemmMr == 6 && kGemmNr == 16, "kernel is written for 6x16");
  __m256 acc[kGemmMr][2];
#pragma GCC unroll 6
  for (int r = 0; r < kGemmMr; ++r) {
    acc[r][0] = _mm256_loadu_ps(c + r * ldc);
    acc[r][1] = _mm256_loadu_ps(c + r * ldc + 8);
  }
  for (int64_t kk = 0; kk < kc; ++kk, a += kGemmMr, b += kGemmNr) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int r = 0; r < kGemmMr; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kGemmMr; ++r) {
    _mm256_storeu_ps(c + r * ldc, acc[r][0]);
    _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
  }
}
#endif

using KernelF32 = void (*)(int64_t, const float *, const float *, float *,
                           int64_t);

KernelF32 selectKernelF32() {
#if defined(__x86_64__)
  if (detail::useAvx2())
    return kernelF32Avx2;
#endif
  return kernelF32Portable;
}

// Bulk conversions by format (tag dispatch over the SIMD-dispatched ones).
void narrowBulk(detail::F16Format, const float *s, int64_t n, uint16_t *d) {
  detail::f32ToF16Bulk(s, n, d);
}
void narrowBulk(detail::F16Format, const double *s, int64_t n, uint16_t *d) {
  detail::f64ToF16Bulk(s, n, d);
}
void narrowBulk(detail::BF16Format, const float *s, int64_t n, uint16_t *d) {
  detail::f32ToBF16Bulk(s, n, d);
}
void narrowBulk(detail::BF16Format, const double *s, int64_t n, uint16_t *d) {
  detail::f64ToBF16Bulk(s, n, d);
}
void widenBulk(detail::F16Format, const uint16_t *s, int64_t n, float *d) {
  detail::f16ToF32Bulk(s, n, d);
}
void widenBulk(detail::BF16Format, const uint16_t *s, int64_t n, float *d) {
  detail::bf16ToF32Bulk(s, n, d);
}

/// Rounds a rows x cols operand (leading dimension ld) RNE to `Fmt` and
/// widens it back exactly: a dense f32 matrix of the rounded values. Done
/// once per operand with the bulk conversions, before any packing.
template <class Fmt, detail::ScratchSlot Slot, class T>
const float *roundOperand(const T *src, int64_t rows, int64_t cols,
                          int64_t ld) {
  float *out = detail::threadScratch<float, Slot>(rows * cols);
  std::vector<uint16_t> bits(std::is_same_v<T, uint16_t> ? 0 : cols);
  for (int64_t r = 0; r < rows; ++r) {
    if constexpr (std::is_same_v<T, uint16_t>) {
      widenBulk(Fmt{}, src + r * ld, cols, out + r * cols);
    } else {
      narrowBulk(Fmt{}, src + r * ld, cols, bits.data());
      widenBulk(Fmt{}, bits.data(), cols, out + r * cols);
    }
  }
  return out;
}

/// acc (M x N f32, leading dimension ldacc) = the reduced GEMM of validated
/// operands of element type T.
template <class Fmt, class T>
void gemmReducedCore(int64_t m, int64_t n, int64_t k, const T *a, int64_t lda,
                     const T *b, int64_t ldb, float *acc, int64_t ldacc) {
  if (m == 0 || n == 0)
    return; // No output: acc (C) may be null, so no offset is formed from it.
  for (int64_t i = 0; i < m; ++i)
    std::fill(acc + i * ldacc, acc + i * ldacc + n, 0.0f);
  if (k == 0)
    return;
  const float *ar =
      roundOperand<Fmt, detail::ScratchSlot::kRoundedA>(a, m, k, lda);
  const float *br =
      roundOperand<Fmt, detail::ScratchSlot::kRoundedB>(b, k, n, ldb);
  const KernelF32 kernel = selectKernelF32();
  auto packA = [&](int64_t k0, int64_t kc, int64_t m0, int64_t rows,
                   float *panel) {
    for (int64_t r = 0; r < kGemmMr; ++r) {
      if (r >= rows) {
        for (int64_t kk = 0; kk < kc; ++kk)
          panel[kk * kGemmMr + r] = 0.0f;
        continue;
      }
      const float *row = ar + (m0 + r) * k + k0;
      for (int64_t kk = 0; kk < kc; ++kk)
        panel[kk * kGemmMr + r] = row[kk];
    }
  };
  auto packB = [&](int64_t k0, int64_t kc, int64_t n0, int64_t cols,
                   float *panel) {
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float *row = br + (k0 + kk) * n + n0;
      for (int j = 0; j < kGemmNr; ++j)
        panel[kk * kGemmNr + j] = j < cols ? row[j] : 0.0f;
    }
  };
  auto tile = [&](int64_t, int64_t kc, int64_t m0, int64_t rows, int64_t n0,
                  int64_t cols, const float *aPanel, const float *bPanel) {
    float *c = acc + m0 * ldacc + n0;
    if (rows == kGemmMr && cols == kGemmNr)
      return kernel(kc, aPanel, bPanel, c, ldacc);
    // Edge tile: run on a zero-padded copy.
    float t[kGemmMr * kGemmNr] = {};
    for (int64_t r = 0; r < rows; ++r)
      std::copy(c + r * ldacc, c + r * ldacc + cols, t + r * kGemmNr);
    kernel(kc, aPanel, bPanel, t, kGemmNr);
    for (int64_t r = 0; r < rows; ++r)
      std::copy(t + r * kGemmNr, t + r * kGemmNr + cols, c + r * ldacc);
  };
  detail::blockedGemm<float>(m, n, k, packA, packB, tile);
}

template <class Fmt, class T, class Out>
absl::Status gemmReducedTyped(absl::string_view op, int64_t m, int64_t n,
                              int64_t k, const T *a, int64_t lda, const T *b,
                              int64_t ldb, Out *c, int64_t ldc) {
  // An empty result reads and writes nothing (A, B and C may be null) and
  // needs no workspace, however large the other dimensions are.
  if (m == 0 || n == 0)
    return absl::OkStatus();
  // Workspaces: the rounded operands, the packed A panels and (f64 output)
  // the f32 accumulators.
  for (const auto &[rows, cols] :
       {std::pair{m, k}, std::pair{k, n}, std::pair{m, n}})
    if (absl::Status s = detail::checkWorkspace(op, rows, cols, sizeof(float));
        !s.ok())
      return s;
  if (absl::Status s = detail::checkPackedWorkspace(op, m, k, detail::kGemmKc,
                                                    sizeof(float));
      !s.ok())
    return s;
  float *acc;
  int64_t ldacc;
  if constexpr (std::is_same_v<Out, float>) {
    acc = c;
    ldacc = ldc;
  } else {
    acc =
        detail::threadScratch<float, detail::ScratchSlot::kAccumulator>(m * n);
    ldacc = n;
  }
  gemmReducedCore<Fmt>(m, n, k, a, lda, b, ldb, acc, ldacc);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = acc[i * ldacc + j];
      if (!std::isfinite(v))
        return detail::outOfRange(op, ": result C[", i, "][", j, "] (", v,
                                  ") is not finite");
      c[i * ldc + j] = static_cast<Out>(v);
    }
  return absl::OkStatus();
}

template <class T, class Out>
absl::Status gemmReduced(absl::string_view op, Float16Format format, int64_t m,
                         int64_t n, int64_t k, const T *a, int64_t lda,
                         const T *b, int64_t ldb, Out *c, int64_t ldc) {
  if (absl::Status s =
          detail::checkGemmShapes(op, m, n, k, a, lda, b, ldb, c, ldc);
      !s.ok())
    return s;
  switch (format) {
  case Float16Format::kF16:
    return gemmReducedTyped<detail::F16Format>(op, m, n, k, a, lda, b, ldb, c,
                                               ldc);
  case Float16Format::kBF16:
    return gemmReducedTyped<detail::BF16Format>(op, m, n, k, a, lda, b, ldb, c,
                                                ldc);
  }
  return detail::invalidArgument(op, ": unknown format ",
                                 static_cast<int>(format));
}

} // namespace

absl::Status GemmReduced(Float16Format format, int64_t m, int64_t n, int64_t k,
                         const float *a, int64_t lda, const float *b,
                         int64_t ldb, float *c, int64_t ldc) {
  return gemmReduced("gemm_reduced_f32", format, m, n, k, a, lda, b, ldb, c,
                     ldc);
}

absl::Status GemmReduced(Float16Format format, int64_t m, int64_t n, int64_t k,
                         const double *a, int64_t lda, const double *b,
                         int64_t ldb, double *c, int64_t ldc) {
  return gemmReduced("gemm_reduced_f64", format, m, n, k, a, lda, b, ldb, c,
                     ldc);
}

absl::Status GemmReduced(Float16Format format, int64_t m, int64_t n, int64_t k,
                         const uint16_t *a, int64_t lda, const uint16_t *b,
                         int64_t ldb, float *c, int64_t ldc) {
  return gemmReduced("gemm_reduced_u16_f32", format, m, n, k, a, lda, b, ldb, c,
                     ldc);
}

} // namespace mixrt

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

namespace {

/// Validates `format` as an integer, then runs the C++ GEMM.
template <class T, class Out>
mixrt_status_code gemmReducedC(const char *op, mixrt_float16_format format,
                               int64_t m, int64_t n, int64_t k, const T *a,
                               int64_t lda, const T *b, int64_t ldb, Out *c,
                               int64_t ldc) {
  return mixrt::detail::guardC([&]() -> absl::Status {
    if (absl::Status s = mixrt::detail::checkEnum(
            op, "format", "mixrt_float16_format", format, 2);
        !s.ok())
      return s;
    return mixrt::GemmReduced(
        static_cast<mixrt::Float16Format>(mixrt::detail::enumValue(format)), m,
        n, k, a, lda, b, ldb, c, ldc);
  });
}

} // namespace

extern "C" {

mixrt_status_code mixrt_gemm_reduced_f32(mixrt_float16_format format, int64_t M,
                                         int64_t N, int64_t K, const float *A,
                                         int64_t lda, const float *B,
                                         int64_t ldb, float *C, int64_t ldc) {
  return gemmReducedC("gemm_reduced_f32", format, M, N, K, A, lda, B, ldb, C,
                      ldc);
}

mixrt_status_code mixrt_gemm_reduced_f64(mixrt_float16_format format, int64_t M,
                                         int64_t N, int64_t K, const double *A,
                                         int64_t lda, const double *B,
                                         int64_t ldb, double *C, int64_t ldc) {
  return gemmReducedC("gemm_reduced_f64", format, M, N, K, A, lda, B, ldb, C,
                      ldc);
}

mixrt_status_code mixrt_gemm_reduced_u16_f32(mixrt_float16_format format,
                                             int64_t M, int64_t N, int64_t K,
                                             const uint16_t *A, int64_t lda,
                                             const uint16_t *B, int64_t ldb,
                                             float *C, int64_t ldc) {
  return gemmReducedC("gemm_reduced_u16_f32", format, M, N, K, A, lda, B, ldb,
                      C, ldc);
}

} // extern "C"
