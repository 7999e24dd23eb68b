//===-- gemm_s8.cpp - Exact INT8 GEMM with int32 overflow detection -------===//
//
// acc[m][n] = sum_k (A[m][k] - za) * (B[k][n] - zb), exact. Operands are
// packed as int16 values with the zero points already subtracted
// (|a - za| <= 255), k in pairs, so the AVX2 micro-kernel is sign-extended
// int16 x int16 -> int32 with vpmaddwd + vpaddd (never the saturating
// vpmaddubsw).
//
// Overflow: if K * max|a - za| * max|b - zb| <= INT32_MAX, no sum in any
// order can leave int32 and the k blocks accumulate in int32 directly.
// Otherwise each k block (at most 512 * 255 * 255 in magnitude) is summed in
// int32 and the blocks in int64, and every final sum is checked.
//
//===----------------------------------------------------------------------===//

#include "gemm_common.h"
#include "internal.h"

#include <cmath>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mixrt {
namespace {

using detail::kGemmMr;
using detail::kGemmNr;

/// k block of the INT8 GEMM: int16 panels are half the size of f32 ones, so
/// twice as deep a block still fits L1 and halves the passes over C. A block
/// sum is at most 512 * 255 * 255 < 2^31 in magnitude.
constexpr int64_t kS8KBlock = 512;

/// A validated int8 operand: data, leading dimension and zero points.
struct S8View {
  const int8_t *data = nullptr;
  int64_t ld = 0;
  const int32_t *zeroPoints = nullptr; ///< null: all zero
  bool perChannel = false;

  int32_t zeroPoint(int64_t channel) const {
    return zeroPoints ? zeroPoints[perChannel ? channel : 0] : 0;
  }
};

//===----------------------------------------------------------------------===//
// Micro-kernels: tile[Mr][Nr] = sum over kPairs of the packed panels.
// A panel: int16 [kPairs][Mr][2]; B panel: int16 [kPairs][Nr][2].
//===----------------------------------------------------------------------===//

void kernelS8Portable(int64_t kPairs, const int16_t *a, const int16_t *b,
                      int32_t *tile) {
  std::memset(tile, 0, sizeof(int32_t) * kGemmMr * kGemmNr);
  for (int64_t kp = 0; kp < kPairs; ++kp, a += 2 * kGemmMr, b += 2 * kGemmNr)
    for (int r = 0; r < kGemmMr; ++r) {
      const int32_t a0 = a[2 * r], a1 = a[2 * r + 1];
      for (int j = 0; j < kGemmNr; ++j)
        tile[r * kGemmNr + j] += a0 * b[2 * j] + a1 * b[2 * j + 1];
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) void kernelS8Avx2(int64_t kPairs,
                                                  const int16_t *a,
                                                  const int16_t *b,
                                                  int32_t *tile) {
  static_assert(kGemmMr == 6 && kGemmNr == 16, "kernel is written for 6x16");
  __m256i acc[kGemmMr][2];
#pragma GCC unroll 6
  for (int r = 0; r < kGemmMr; ++r)
    acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (int64_t kp = 0; kp < kPairs; ++kp, a += 2 * kGemmMr, b += 2 * kGemmNr) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b));
    const __m256i b1 =
        _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + 16));
#pragma GCC unroll 6
    for (int r = 0; r < kGemmMr; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + 2 * r, sizeof(pair));
      const __m256i av = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, b0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, b1));
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kGemmMr; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(tile + r * kGemmNr),
                        acc[r][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(tile + r * kGemmNr + 8),
                        acc[r][1]);
  }
}
#endif

using KernelS8 = void (*)(int64_t, const int16_t *, const int16_t *, int32_t *);

KernelS8 selectKernelS8() {
#if defined(__x86_64__)
  if (detail::useAvx2())
    return kernelS8Avx2;
#endif
  return kernelS8Portable;
}

/// max |x - zp| over a rows x cols operand whose zero point is indexed by
/// row (A) or column (B).
int32_t maxAbsCentered(const S8View &v, int64_t rows, int64_t cols,
                       bool channelIsRow) {
  int32_t result = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const int32_t zp = v.zeroPoint(channelIsRow ? i : j);
      const int32_t d = v.data[i * v.ld + j] - zp;
      result = std::max(result, d < 0 ? -d : d);
    }
  return result;
}

/// The exact integer GEMM on validated arguments; C is M x N with ldc.
absl::Status gemmS8Core(absl::string_view op, int64_t m, int64_t n, int64_t k,
                        const S8View &a, const S8View &b, int32_t *c,
                        int64_t ldc) {
  if (m == 0 || n == 0)
    return absl::OkStatus(); // No output; A, B and C may be null.
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      std::fill(c + i * ldc, c + i * ldc + n, 0);
    return absl::OkStatus();
  }
  if (absl::Status s =
          detail::checkPackedWorkspace(op, m, k, kS8KBlock, sizeof(int16_t));
      !s.ok())
    return s;
  if (absl::Status s = detail::checkWorkspace(op, m, n, sizeof(int64_t));
      !s.ok())
    return s;
  const uint64_t perK = static_cast<uint64_t>(maxAbsCentered(a, m, k, true)) *
                        static_cast<uint64_t>(maxAbsCentered(b, k, n, false));
  const bool wide = perK != 0 && static_cast<uint64_t>(k) >
                                     static_cast<uint64_t>(INT32_MAX) / perK;
  int64_t *acc64 = nullptr;
  if (wide) {
    acc64 = detail::threadScratch<int64_t, detail::ScratchSlot::kAccumulator>(
        m * n);
    std::fill(acc64, acc64 + m * n, 0);
  }
  const KernelS8 kernel = selectKernelS8();

  auto packA = [&](int64_t k0, int64_t kc, int64_t m0, int64_t rows,
                   int16_t *panel) {
    const int64_t depth = detail::paddedDepth(kc);
    for (int64_t kk = 0; kk < depth; ++kk)
      for (int r = 0; r < kGemmMr; ++r) {
        int16_t v = 0;
        if (r < rows && kk < kc)
          v = static_cast<int16_t>(a.data[(m0 + r) * a.ld + k0 + kk] -
                                   a.zeroPoint(m0 + r));
        panel[((kk >> 1) * kGemmMr + r) * 2 + (kk & 1)] = v;
      }
  };
  auto packB = [&](int64_t k0, int64_t kc, int64_t n0, int64_t cols,
                   int16_t *panel) {
    const int64_t depth = detail::paddedDepth(kc);
    for (int64_t kk = 0; kk < depth; ++kk) {
      const int8_t *row = kk < kc ? b.data + (k0 + kk) * b.ld + n0 : nullptr;
      for (int j = 0; j < kGemmNr; ++j) {
        int16_t v = 0;
        if (row && j < cols)
          v = static_cast<int16_t>(row[j] - b.zeroPoint(n0 + j));
        panel[((kk >> 1) * kGemmNr + j) * 2 + (kk & 1)] = v;
      }
    }
  };
  auto tile = [&](int64_t k0, int64_t kc, int64_t m0, int64_t rows, int64_t n0,
                  int64_t cols, const int16_t *aPanel, const int16_t *bPanel) {
    int32_t t[kGemmMr * kGemmNr];
    kernel(detail::paddedDepth(kc) / 2, aPanel, bPanel, t);
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t *src = t + r * kGemmNr;
      if (wide) {
        int64_t *dst = acc64 + (m0 + r) * n + n0;
        for (int64_t j = 0; j < cols; ++j)
          dst[j] += src[j];
        continue;
      }
      int32_t *dst = c + (m0 + r) * ldc + n0;
      if (k0 == 0)
        std::copy(src, src + cols, dst);
      else
        for (int64_t j = 0; j < cols; ++j)
          dst[j] += src[j]; // Cannot overflow: bounded by K * perK.
    }
  };
  detail::blockedGemm<int16_t>(m, n, k, packA, packB, tile, kS8KBlock);

  if (!wide)
    return absl::OkStatus();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t v = acc64[i * n + j];
      if (v < INT32_MIN || v > INT32_MAX)
        return detail::outOfRange(op, ": the int32 accumulator of C[", i, "][",
                                  j, "] overflows (exact sum ", v, ", K = ", k,
                                  ")");
      c[i * ldc + j] = static_cast<int32_t>(v);
    }
  return absl::OkStatus();
}

/// Validates a quantized operand (rows x cols, one channel per row of A or
/// column of B; its data is read only if `accessed`) and returns its view.
/// Scales and zero points are validated whatever the dimensions.
absl::Status checkOperand(absl::string_view op, absl::string_view name,
                          const S8Operand &operand, int64_t rows, int64_t cols,
                          int64_t channels, bool needScales, bool accessed,
                          S8View &out) {
  const bool isA = name == "A";
  if (absl::Status s = detail::checkMatrix(
          op, name, operand.data, rows, cols, operand.ld, isA ? "M" : "K",
          isA ? "K" : "N", isA ? "a->ld" : "b->ld", accessed);
      !s.ok())
    return s;
  const size_t expected = operand.per_channel ? channels : 1;
  if (needScales && operand.scales.size() != expected)
    return detail::invalidArgument(op, ": ", name, " needs ", expected,
                                   " scales, got ", operand.scales.size());
  if (needScales)
    for (size_t i = 0; i < operand.scales.size(); ++i)
      if (!(operand.scales[i] > 0.0f) || !std::isfinite(operand.scales[i]))
        return detail::invalidArgument(op, ": scale ", i, " of ", name, " (",
                                       operand.scales[i],
                                       ") is not positive and finite");
  if (!operand.zero_points.empty() && operand.zero_points.size() != expected)
    return detail::invalidArgument(op, ": ", name, " needs ", expected,
                                   " zero points, got ",
                                   operand.zero_points.size());
  for (size_t i = 0; i < operand.zero_points.size(); ++i)
    if (operand.zero_points[i] < -128 || operand.zero_points[i] > 127)
      return detail::invalidArgument(op, ": zero point ", i, " of ", name, " (",
                                     operand.zero_points[i],
                                     ") is outside [-128, 127]");
  out.data = operand.data;
  out.ld = operand.ld;
  out.perChannel = operand.per_channel;
  out.zeroPoints =
      operand.zero_points.empty() ? nullptr : operand.zero_points.data();
  return absl::OkStatus();
}

/// Shared front end of the quantized GEMMs: validation + exact accumulators
/// into `acc` (M x N, dense) or straight into an int32 C.
template <class T>
absl::Status gemmS8Checked(absl::string_view op, int64_t m, int64_t n,
                           int64_t k, const S8Operand &a, const S8Operand &b,
                           const T *c, int64_t ldc, bool needScales,
                           S8View &aView, S8View &bView) {
  if (absl::Status s = detail::checkGemmShapes(op, m, n, k, a.data, a.ld,
                                               b.data, b.ld, c, ldc);
      !s.ok())
    return s;
  const bool reads = detail::gemmReadsOperands(m, n, k);
  if (absl::Status s =
          checkOperand(op, "A", a, m, k, m, needScales, reads, aView);
      !s.ok())
    return s;
  return checkOperand(op, "B", b, k, n, n, needScales, reads, bView);
}

/// Scaled GEMM: out = (T)((double)sa * (double)sb * (double)acc).
template <class T>
absl::Status gemmS8Scaled(absl::string_view op, int64_t m, int64_t n, int64_t k,
                          const S8Operand &a, const S8Operand &b, T *c,
                          int64_t ldc) {
  S8View aView, bView;
  if (absl::Status s = gemmS8Checked(op, m, n, k, a, b, c, ldc,
                                     /*needScales=*/true, aView, bView);
      !s.ok())
    return s;
  // An empty result reads and writes nothing (not even the scales again).
  if (m == 0 || n == 0)
    return absl::OkStatus();
  if (absl::Status s = detail::checkWorkspace(op, m, n, sizeof(int32_t));
      !s.ok())
    return s;
  // A plain vector: gemmS8Core's int64 scratch (kAccumulator) may be live.
  std::vector<int32_t> acc(m * n);
  if (absl::Status s = gemmS8Core(op, m, n, k, aView, bView, acc.data(), n);
      !s.ok())
    return s;
  for (int64_t i = 0; i < m; ++i) {
    const double sa = a.scales[a.per_channel ? i : 0];
    for (int64_t j = 0; j < n; ++j) {
      const double sb = b.scales[b.per_channel ? j : 0];
      const T v = static_cast<T>(sa * sb * static_cast<double>(acc[i * n + j]));
      if (!std::isfinite(v))
        return detail::outOfRange(op, ": result C[", i, "][", j,
                                  "] is not finite");
      c[i * ldc + j] = v;
    }
  }
  return absl::OkStatus();
}

} // namespace

absl::Status GemmS8S8S32(int64_t m, int64_t n, int64_t k, const int8_t *a,
                         int64_t lda, const int8_t *b, int64_t ldb, int32_t *c,
                         int64_t ldc) {
  constexpr absl::string_view kOp = "gemm_s8s8s32";
  if (absl::Status s =
          detail::checkGemmShapes(kOp, m, n, k, a, lda, b, ldb, c, ldc);
      !s.ok())
    return s;
  S8View aView{a, lda}, bView{b, ldb};
  return gemmS8Core(kOp, m, n, k, aView, bView, c, ldc);
}

absl::Status GemmS8(int64_t m, int64_t n, int64_t k, const S8Operand &a,
                    const S8Operand &b, int32_t *c, int64_t ldc) {
  constexpr absl::string_view kOp = "gemm_s8_s32";
  S8View aView, bView;
  if (absl::Status s = gemmS8Checked(kOp, m, n, k, a, b, c, ldc,
                                     /*needScales=*/false, aView, bView);
      !s.ok())
    return s;
  return gemmS8Core(kOp, m, n, k, aView, bView, c, ldc);
}

absl::Status GemmS8(int64_t m, int64_t n, int64_t k, const S8Operand &a,
                    const S8Operand &b, float *c, int64_t ldc) {
  return gemmS8Scaled("gemm_s8_f32", m, n, k, a, b, c, ldc);
}

absl::Status GemmS8(int64_t m, int64_t n, int64_t k, const S8Operand &a,
                    const S8Operand &b, double *c, int64_t ldc) {
  return gemmS8Scaled("gemm_s8_f64", m, n, k, a, b, c, ldc);
}

absl::StatusOr<std::vector<float>> GemmS8(const QTensor &a, const QTensor &b) {
  constexpr absl::string_view kOp = "gemm_s8_qtensor";
  if (a.shape().size() != 2 || b.shape().size() != 2)
    return detail::invalidArgument(kOp, ": operands must have rank 2");
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  if (b.shape()[0] != k)
    return detail::invalidArgument(kOp, ": A is ", m, "x", k, " but B is ",
                                   b.shape()[0], "x", n);
  if (a.axis() != kPerTensor && a.axis() != 0)
    return detail::invalidArgument(
        kOp, ": A must be quantized per tensor or per row (axis 0)");
  if (b.axis() != kPerTensor && b.axis() != 1)
    return detail::invalidArgument(
        kOp, ": B must be quantized per tensor or per column (axis 1)");
  const S8Operand aOp{a.data().data(), k, a.axis() == 0, a.scales(),
                      a.zero_points()};
  const S8Operand bOp{b.data().data(), n, b.axis() == 1, b.scales(),
                      b.zero_points()};
  std::vector<float> c(m * n);
  if (absl::Status s = GemmS8(m, n, k, aOp, bOp, c.data(), n); !s.ok())
    return s;
  return c;
}

} // namespace mixrt

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

namespace {

/// Converts a C operand to the C++ one; the counts follow per_channel.
absl::Status toOperand(const char *op, const char *name,
                       const mixrt_gemm_s8_operand *in, int64_t channels,
                       mixrt::S8Operand &out) {
  if (absl::Status s = mixrt::detail::checkPtr(op, in, name); !s.ok())
    return s;
  if (in->per_channel != 0 && in->per_channel != 1)
    return mixrt::detail::invalidArgument(op, ": ", name, "->per_channel (",
                                          in->per_channel, ") must be 0 or 1");
  const int64_t count = in->per_channel ? channels : 1;
  // scales and zero_points are 4-byte arrays of `count` values.
  static_assert(sizeof(float) == 4 && sizeof(int32_t) == 4);
  if (absl::Status s = mixrt::detail::checkBytes(
          op,
          absl::StrCat(name[0] == 'a' ? "M" : "N", " (values in ", name,
                       "->scales and ", name, "->zero_points)"),
          count, 4);
      !s.ok())
    return s;
  out.data = in->data;
  out.ld = in->ld;
  out.per_channel = in->per_channel != 0;
  out.scales = in->scales ? absl::Span<const float>(in->scales, count)
                          : absl::Span<const float>();
  out.zero_points = in->zero_points
                        ? absl::Span<const int32_t>(in->zero_points, count)
                        : absl::Span<const int32_t>();
  return absl::OkStatus();
}

template <class T>
mixrt_status_code gemmS8C(const char *op, int64_t m, int64_t n, int64_t k,
                          const mixrt_gemm_s8_operand *a,
                          const mixrt_gemm_s8_operand *b, T *c, int64_t ldc) {
  return mixrt::detail::guardC([&]() -> absl::Status {
    mixrt::S8Operand aOp, bOp;
    if (absl::Status s = toOperand(op, "a", a, std::max<int64_t>(m, 0), aOp);
        !s.ok())
      return s;
    if (absl::Status s = toOperand(op, "b", b, std::max<int64_t>(n, 0), bOp);
        !s.ok())
      return s;
    return mixrt::GemmS8(m, n, k, aOp, bOp, c, ldc);
  });
}

} // namespace

extern "C" {

mixrt_status_code mixrt_gemm_s8s8s32(int64_t M, int64_t N, int64_t K,
                                     const int8_t *A, int64_t lda,
                                     const int8_t *B, int64_t ldb, int32_t *C,
                                     int64_t ldc) {
  return mixrt::detail::guardC(
      [&] { return mixrt::GemmS8S8S32(M, N, K, A, lda, B, ldb, C, ldc); });
}

mixrt_status_code mixrt_gemm_s8_s32(int64_t M, int64_t N, int64_t K,
                                    const mixrt_gemm_s8_operand *a,
                                    const mixrt_gemm_s8_operand *b, int32_t *C,
                                    int64_t ldc) {
  return gemmS8C("gemm_s8_s32", M, N, K, a, b, C, ldc);
}

mixrt_status_code mixrt_gemm_s8_f32(int64_t M, int64_t N, int64_t K,
                                    const mixrt_gemm_s8_operand *a,
                                    const mixrt_gemm_s8_operand *b, float *C,
                                    int64_t ldc) {
  return gemmS8C("gemm_s8_f32", M, N, K, a, b, C, ldc);
}

mixrt_status_code mixrt_gemm_s8_f64(int64_t M, int64_t N, int64_t K,
                                    const mixrt_gemm_s8_operand *a,
                                    const mixrt_gemm_s8_operand *b, double *C,
                                    int64_t ldc) {
  return gemmS8C("gemm_s8_f64", M, N, K, a, b, C, ldc);
}

} // extern "C"
