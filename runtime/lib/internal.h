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
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

extern "C" {
/// Called by the core's mixrt_check_status() (runtime/core/check.c, built
/// with MIXRT_CORE_HOSTED into the hosted mixrt) when a check of generated
/// code failed: stores the record's message as the last error message.
__attribute__((visibility("hidden"))) void
mixrt_hosted_report_check_failure(const mixrt_check_record *record);
}

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
template <class... Args> absl::Status notFound(const Args &...args) {
  return absl::NotFoundError(absl::StrCat(args...));
}
template <class... Args> absl::Status failedPrecondition(const Args &...args) {
  return absl::FailedPreconditionError(absl::StrCat(args...));
}
template <class... Args> absl::Status unavailable(const Args &...args) {
  return absl::UnavailableError(absl::StrCat(args...));
}
template <class... Args> absl::Status dataLoss(const Args &...args) {
  return absl::DataLossError(absl::StrCat(args...));
}

/// Stores `status`'s message as the thread's last error (if not OK) and
/// returns its C code.
mixrt_status_code toCStatus(const absl::Status &status);

/// Sets the calling thread's last error message.
void setLastError(absl::string_view message);

/// Counts the last error messages stored on the calling thread: a change
/// tells that a message was set in between (even an identical one).
uint64_t lastErrorGeneration();

/// `message` cut to at most `maxBytes` bytes (at a UTF-8 character
/// boundary) followed by "..." if it was longer.
std::string truncateMessage(absl::string_view message, size_t maxBytes);

/// Runs `fn` (returning absl::Status) at the C boundary: exceptions (only
/// std::bad_alloc and std::length_error can occur) never cross it.
template <class Fn> mixrt_status_code guardC(Fn &&fn) noexcept {
  try {
    return toCStatus(std::forward<Fn>(fn)());
  } catch (const std::bad_alloc &) {
    return toCStatus(absl::ResourceExhaustedError("out of memory"));
  } catch (const std::length_error &) {
    // A std::vector larger than max_size(): an allocation that cannot be
    // satisfied either.
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

/// The integer value of a C enum argument. In C++ the mixrt C enums have the
/// fixed underlying type int32_t (MIXRT_ENUM_BASE), so every int32_t a C
/// caller passes is a valid value of the enum type and reading it is
/// defined; it is then compared as an integer, never switched on as an enum.
template <class E> constexpr int32_t enumValue(E value) {
  static_assert(sizeof(E) == sizeof(int32_t), "mixrt C enums are 32-bit");
  return static_cast<int32_t>(value);
}

/// The C enum argument `name` of type `typeName` must be one of the values
/// 0 .. count - 1 (every mixrt enum except mixrt_status_code is contiguous).
template <class E>
absl::Status checkEnum(absl::string_view op, absl::string_view name,
                       absl::string_view typeName, E value, int32_t count) {
  const int32_t v = enumValue(value);
  if (v < 0 || v >= count)
    return invalidArgument(op, ": ", name, " (", v, ") is not a valid ",
                           typeName);
  return absl::OkStatus();
}

/// True if `code` is one of the mixrt_status_code values.
constexpr bool isStatusCode(int32_t code) {
  return code == MIXRT_STATUS_OK || code == MIXRT_STATUS_INVALID_ARGUMENT ||
         code == MIXRT_STATUS_OUT_OF_RANGE ||
         code == MIXRT_STATUS_UNIMPLEMENTED || code == MIXRT_STATUS_INTERNAL ||
         code == MIXRT_STATUS_RESOURCE_EXHAUSTED ||
         code == MIXRT_STATUS_NOT_FOUND ||
         code == MIXRT_STATUS_FAILED_PRECONDITION ||
         code == MIXRT_STATUS_UNAVAILABLE || code == MIXRT_STATUS_DATA_LOSS;
}

/// `count` (>= 0) elements of `elemSize` bytes must fit in one object:
/// count * elemSize <= PTRDIFF_MAX, computed without overflow. Every size a
/// C caller passes goes through this (or checkMatrix) before any pointer
/// arithmetic, so offsets below it never wrap.
inline absl::Status checkBytes(absl::string_view op, absl::string_view name,
                               int64_t count, size_t elemSize) {
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<int64_t>(elemSize), &bytes) ||
      bytes > PTRDIFF_MAX)
    return invalidArgument(op, ": ", name, " (", count, ") * ", elemSize,
                           " bytes exceeds PTRDIFF_MAX");
  return absl::OkStatus();
}

/// A row-major `rows` x `cols` matrix (both >= 0) of T at `ptr` with leading
/// dimension `ld`: ld >= max(cols, 1), and its extent, (rows - 1) * ld + cols
/// elements, must fit in PTRDIFF_MAX bytes (computed without overflow). `ptr`
/// must be non-null if the matrix has elements and the call `accessed` it
/// (a GEMM with an empty result reads no operand).
template <class T>
absl::Status checkMatrix(absl::string_view op, absl::string_view name,
                         const T *ptr, int64_t rows, int64_t cols, int64_t ld,
                         absl::string_view rowsName, absl::string_view colsName,
                         absl::string_view ldName, bool accessed = true) {
  if (ld < cols || ld < 1)
    return invalidArgument(op, ": leading dimension of ", name, " (", ld,
                           ") is smaller than ", colsName, " (", cols,
                           ") or 1");
  if (rows > 0 && cols > 0) {
    int64_t extent = 0, bytes = 0;
    if (__builtin_mul_overflow(rows - 1, ld, &extent) ||
        __builtin_add_overflow(extent, cols, &extent) ||
        __builtin_mul_overflow(extent, static_cast<int64_t>(sizeof(T)),
                               &bytes) ||
        bytes > PTRDIFF_MAX)
      return invalidArgument(op, ": ", name, ": (", rowsName, " - 1) * ",
                             ldName, " + ", colsName, " elements * ", sizeof(T),
                             " bytes exceeds PTRDIFF_MAX (", rowsName, " = ",
                             rows, ", ", colsName, " = ", cols, ", ", ldName,
                             " = ", ld, ")");
  }
  return checkPtr(op, ptr, name, accessed && rows > 0 && cols > 0);
}

/// An internal buffer of `rows` x `cols` elements of `elemSize` bytes (rows,
/// cols >= 0): RESOURCE_EXHAUSTED if its size overflows PTRDIFF_MAX.
inline absl::Status checkWorkspace(absl::string_view op, int64_t rows,
                                   int64_t cols, size_t elemSize) {
  int64_t count = 0, bytes = 0;
  if (__builtin_mul_overflow(rows, cols, &count) ||
      __builtin_mul_overflow(count, static_cast<int64_t>(elemSize), &bytes) ||
      bytes > PTRDIFF_MAX)
    return absl::ResourceExhaustedError(
        absl::StrCat(op, ": a workspace of ", rows, " x ", cols, " x ",
                     elemSize, " bytes exceeds PTRDIFF_MAX"));
  return absl::OkStatus();
}

/// True if a GEMM of these (validated, >= 0) dimensions reads A and B: only
/// when it has outputs and K > 0. With M, N or K zero the operands may be
/// null.
inline bool gemmReadsOperands(int64_t m, int64_t n, int64_t k) {
  return m > 0 && n > 0 && k > 0;
}

/// Validates M, N, K >= 0 and the three matrices of a row-major GEMM. Every
/// leading dimension and extent is checked; A and B may be null when
/// gemmReadsOperands() is false, C when M or N is 0 (it has no elements).
template <class TA, class TB, class TC>
absl::Status checkGemmShapes(absl::string_view op, int64_t m, int64_t n,
                             int64_t k, const TA *a, int64_t lda, const TB *b,
                             int64_t ldb, const TC *c, int64_t ldc) {
  if (absl::Status s = checkNonNegative(op, m, "M"); !s.ok())
    return s;
  if (absl::Status s = checkNonNegative(op, n, "N"); !s.ok())
    return s;
  if (absl::Status s = checkNonNegative(op, k, "K"); !s.ok())
    return s;
  const bool reads = gemmReadsOperands(m, n, k);
  if (absl::Status s =
          checkMatrix(op, "A", a, m, k, lda, "M", "K", "lda", reads);
      !s.ok())
    return s;
  if (absl::Status s =
          checkMatrix(op, "B", b, k, n, ldb, "K", "N", "ldb", reads);
      !s.ok())
    return s;
  return checkMatrix(op, "C", c, m, n, ldc, "M", "N", "ldc");
}

/// Validates a C tensor list (pointers + sizes) and appends spans over it
/// to `out` (T may be const). The pointer and size arrays and every tensor
/// must fit in PTRDIFF_MAX bytes.
template <class T>
absl::Status tensorSpans(absl::string_view op, T *const *tensors,
                         const int64_t *sizes, int64_t numTensors,
                         std::vector<absl::Span<T>> &out) {
  if (absl::Status s = checkNonNegative(op, numTensors, "num_tensors"); !s.ok())
    return s;
  if (absl::Status s = checkBytes(op, "num_tensors", numTensors,
                                  std::max(sizeof(T *), sizeof(int64_t)));
      !s.ok())
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
    if (absl::Status s =
            checkBytes(op, absl::StrCat("sizes[", i, "]"), sizes[i], sizeof(T));
        !s.ok())
      return s;
    if (sizes[i] > 0 && tensors[i] == nullptr)
      return invalidArgument(op, ": tensors[", i, "] is null");
    out.emplace_back(tensors[i], sizes[i]);
  }
  return absl::OkStatus();
}

/// Total element count of `shape` (rank >= 1, dims >= 0), or an error.
absl::Status checkShape(absl::string_view op, absl::Span<const int64_t> shape,
                        int64_t &outCount);

/// Checks a loss scaler configuration; messages read "<op>: <prefix><field>
/// (<value>) must ..." (loss_scaler.cpp).
absl::Status checkLossScalerConfig(absl::string_view op,
                                   absl::string_view prefix,
                                   const LossScalerConfig &config);

//===----------------------------------------------------------------------===//
// Gradient norm and clipping over tensors of mixed types (grad.cpp)
//===----------------------------------------------------------------------===//

/// A gradient tensor of float or double elements.
struct GradView {
  void *data;
  int64_t size;
  bool f64;
};

/// The L2 norm of mixrt_grad_norm over `grads` (in order, f64, without
/// intermediate overflow): INVALID_ARGUMENT for a non-finite element,
/// OUT_OF_RANGE if the norm overflows f64. Allocates nothing.
absl::StatusOr<double> gradNormViews(absl::string_view op,
                                     absl::Span<const GradView> grads);
/// max_norm and eps of mixrt_clip_grad_norm must be finite and >= 0.
absl::Status checkClipArgs(absl::string_view op, double maxNorm, double eps);
/// min(1, max_norm / (norm + eps)).
double clipCoef(double norm, double maxNorm, double eps);
/// g = (T)((double)g * coef) for every element.
void scaleGradViews(absl::Span<const GradView> grads, double coef);

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
