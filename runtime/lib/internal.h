//===-- internal.h - Shared internals of mixrt ------------------*- C++ -*-===//
//
// Argument validation helpers, the C status bridge (absl::Status ->
// mixrt_status_code + thread-local message), SIMD dispatch state and the
// QTensor builder used across the implementation files.
//
//===----------------------------------------------------------------------===//

#ifndef MIXRT_LIB_INTERNAL_H
#define MIXRT_LIB_INTERNAL_H

#include "mixrt/mixrt.h"
#include "mixrt/mixrt.hpp"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace mixrt::detail {

//===----------------------------------------------------------------------===//
// Status helpers
//===----------------------------------------------------------------------===//

template <class... Args> absl::Status invalidArgument(const Args &...args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}
template <class... Args> absl::Status outOfRange(const Args &...args) {
  return absl::OutOfRangeError(absl::StrCat(args...));
}

/// Stores `status`'s message as the thread's last error (if not OK) and
/// returns its C code.
mixrt_status_code toCStatus(const absl::Status &status);

/// Runs `fn` (returning absl::Status) at the C boundary: exceptions (only
/// std::bad_alloc can occur) never cross it.
template <class Fn> mixrt_status_code guardC(Fn &&fn) noexcept {
  try {
    return toCStatus(std::forward<Fn>(fn)());
  } catch (const std::bad_alloc &) {
    return toCStatus(absl::ResourceExhaustedError("out of memory"));
  } catch (...) {
    return toCStatus(absl::InternalError("unexpected C++ exception"));
  }
}

/// `ptr` must be non-null when `needed`.
inline absl::Status checkPtr(absl::string_view op, const void *ptr,
                             absl::string_view name, bool needed = true) {
  if (needed && ptr == nullptr)
    return invalidArgument(op, ": ", name, " is null");
  return absl::OkStatus();
}

/// `value` must be >= 0.
inline absl::Status checkNonNegative(absl::string_view op, int64_t value,
                                     absl::string_view name) {
  if (value < 0)
    return invalidArgument(op, ": ", name, " (", value, ") is negative");
  return absl::OkStatus();
}

/// A row-major `rows` x `cols` matrix at `ptr` with leading dimension `ld`.
inline absl::Status checkMatrix(absl::string_view op, absl::string_view name,
                                const void *ptr, int64_t rows, int64_t cols,
                                int64_t ld, absl::string_view colsName) {
  if (ld < cols || ld < 1)
    return invalidArgument(op, ": leading dimension of ", name, " (", ld,
                           ") is smaller than ", colsName, " (", cols,
                           ") or 1");
  return checkPtr(op, ptr, name, rows > 0 && cols > 0);
}

/// Validates M, N, K >= 0 and the three matrices of a row-major GEMM.
inline absl::Status checkGemmShapes(absl::string_view op, int64_t m, int64_t n,
                                    int64_t k, const void *a, int64_t lda,
                                    const void *b, int64_t ldb, const void *c,
                                    int64_t ldc) {
  if (absl::Status s = checkNonNegative(op, m, "M"); !s.ok())
    return s;
  if (absl::Status s = checkNonNegative(op, n, "N"); !s.ok())
    return s;
  if (absl::Status s = checkNonNegative(op, k, "K"); !s.ok())
    return s;
  if (absl::Status s = checkMatrix(op, "A", a, m, k, lda, "K"); !s.ok())
    return s;
  if (absl::Status s = checkMatrix(op, "B", b, k, n, ldb, "N"); !s.ok())
    return s;
  return checkMatrix(op, "C", c, m, n, ldc, "N");
}

/// Validates a C tensor list (pointers + sizes) and appends spans over it
/// to `out` (T may be const).
template <class T>
absl::Status tensorSpans(absl::string_view op, T *const *tensors,
                         const int64_t *sizes, int64_t numTensors,
                         std::vector<absl::Span<T>> &out) {
  if (absl::Status s = checkNonNegative(op, numTensors, "num_tensors"); !s.ok())
    return s;
  if (absl::Status s = checkPtr(op, tensors, "tensors", numTensors > 0);
      !s.ok())
    return s;
  if (absl::Status s = checkPtr(op, sizes, "sizes", numTensors > 0); !s.ok())
    return s;
  for (int64_t i = 0; i < numTensors; ++i) {
    if (sizes[i] < 0)
      return invalidArgument(op, ": sizes[", i, "] (", sizes[i],
                             ") is negative");
    if (sizes[i] > 0 && tensors[i] == nullptr)
      return invalidArgument(op, ": tensors[", i, "] is null");
    out.emplace_back(tensors[i], sizes[i]);
  }
  return absl::OkStatus();
}

/// Total element count of `shape` (rank >= 1, dims >= 0), or an error.
absl::Status checkShape(absl::string_view op, absl::Span<const int64_t> shape,
                        int64_t &outCount);

//===----------------------------------------------------------------------===//
// SIMD dispatch
//===----------------------------------------------------------------------===//

/// True if the AVX2 (+FMA +F16C) paths should run.
bool useAvx2();

/// Unchecked bulk conversions on the current SIMD path (convert.cpp); no
/// argument validation.
void f32ToF16Bulk(const float *src, int64_t count, uint16_t *dst);
void f16ToF32Bulk(const uint16_t *src, int64_t count, float *dst);
void f32ToBF16Bulk(const float *src, int64_t count, uint16_t *dst);
void bf16ToF32Bulk(const uint16_t *src, int64_t count, float *dst);
void f64ToF16Bulk(const double *src, int64_t count, uint16_t *dst);
void f64ToBF16Bulk(const double *src, int64_t count, uint16_t *dst);

} // namespace mixrt::detail

namespace mixrt {

/// Builds QTensors (the friend of QTensor).
class QTensorBuilder {
public:
  template <class T>
  static absl::StatusOr<QTensor>
  quantize(absl::string_view op, absl::Span<const T> data,
           absl::Span<const int64_t> shape, QScheme scheme, int axis,
           absl::Span<const float> scales,
           absl::Span<const int32_t> zeroPoints);
};

} // namespace mixrt

#endif // MIXRT_LIB_INTERNAL_H
