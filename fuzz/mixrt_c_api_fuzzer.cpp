//===-- mixrt_c_api_fuzzer.cpp - libFuzzer target for the mixrt C API -----===//
//
// Decodes the input into a short sequence of C API calls (sizes, strides,
// enum values, scales, NaN/inf values, null pointers) on a few live handles
// and checks, after every call:
//
//  * the status is a mixrt_status_code value; on failure the message is a
//    nonempty NUL-terminated string shorter than kMessageBound;
//  * arguments that this file's independent model judges invalid (negative
//    or overflowing sizes, unknown enums, null pointers, bad configurations)
//    give INVALID_ARGUMENT. Such calls get tiny buffers: the library must
//    reject them before reading;
//  * valid calls get buffers of exactly the claimed size (at most kCapBytes
//    in total; larger valid calls are skipped), so ASan sees any access
//    past a claimed extent;
//  * outputs are written only on success (documented exceptions: checked
//    conversions write the whole output; GEMM/dequantize outputs are
//    unspecified after OUT_OF_RANGE); output padding is never written;
//  * results agree with simple references (scalar conversions, int64 GEMM,
//    the documented reduced-GEMM order, quantize formula, optimizer copies).
//
// Any violation aborts with a message, which libFuzzer reports as a crash.
//
//===----------------------------------------------------------------------===//

#include "mixrt/mixrt.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <vector>

namespace {

/// Total bytes of the buffers of one valid call.
constexpr int64_t kCapBytes = int64_t{1} << 20;
/// Multiply-adds of one valid GEMM call (keeps each input fast under ASan).
constexpr int64_t kMaxGemmOps = int64_t{1} << 21;
/// Every error message must be shorter than this.
constexpr size_t kMessageBound = 4096;
/// Size of the buffers passed to calls that must be rejected.
constexpr size_t kTinyBytes = 16;
constexpr uint8_t kCanary = 0xA5;

[[noreturn]] void fail(const char *what, int line) {
  std::fprintf(stderr, "mixrt_c_api_fuzzer.cpp:%d: invariant violated: %s\n",
               line, what);
  std::fprintf(stderr, "last error message: \"%.300s\"\n",
               mixrt_last_error_message());
  std::abort();
}
#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond))                                                               \
      fail(#cond, __LINE__);                                                   \
  } while (0)

bool isStatus(int32_t c) {
  return c == MIXRT_STATUS_OK || c == MIXRT_STATUS_INVALID_ARGUMENT ||
         c == MIXRT_STATUS_OUT_OF_RANGE || c == MIXRT_STATUS_UNIMPLEMENTED ||
         c == MIXRT_STATUS_INTERNAL || c == MIXRT_STATUS_RESOURCE_EXHAUSTED;
}

/// a + b with two's complement wrap-around (decoded edge values may wrap).
int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}

/// Checks the status invariants and returns the code as an integer.
/// INTERNAL is a bug unless the caller made it (a callback's bad status).
int32_t checked(mixrt_status_code status, bool allowInternal = false) {
  const int32_t c = static_cast<int32_t>(status);
  FUZZ_CHECK(isStatus(c));
  FUZZ_CHECK(allowInternal || c != MIXRT_STATUS_INTERNAL);
  if (c != MIXRT_STATUS_OK) {
    const char *m = mixrt_last_error_message();
    FUZZ_CHECK(m != nullptr);
    const size_t n = strnlen(m, kMessageBound);
    FUZZ_CHECK(n > 0 && n < kMessageBound);
  }
  return c;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// A malloc'ed buffer of exactly `bytes` bytes (ASan flags any access past
/// it; malloc(0) gives a unique pointer with no accessible byte), or null.
class Buffer {
public:
  Buffer() = default;
  Buffer(size_t bytes, bool null) : size_(bytes) {
    if (!null) {
      ptr_ = static_cast<uint8_t *>(std::malloc(bytes ? bytes : 1));
      FUZZ_CHECK(ptr_ != nullptr);
      std::memset(ptr_, kCanary, bytes);
    }
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  Buffer(Buffer &&o) noexcept : ptr_(o.ptr_), size_(o.size_) {
    o.ptr_ = nullptr;
  }
  Buffer &operator=(Buffer &&o) noexcept {
    if (this != &o) {
      std::free(ptr_);
      ptr_ = o.ptr_;
      size_ = o.size_;
      o.ptr_ = nullptr;
    }
    return *this;
  }
  ~Buffer() { std::free(ptr_); }
  template <class T> T *as() const { return reinterpret_cast<T *>(ptr_); }
  size_t size() const { return size_; }
  bool untouched() const {
    for (size_t i = 0; ptr_ && i < size_; ++i)
      if (ptr_[i] != kCanary)
        return false;
    return true;
  }
  std::vector<uint8_t> copy() const {
    return ptr_ ? std::vector<uint8_t>(ptr_, ptr_ + size_)
                : std::vector<uint8_t>();
  }
  bool equals(const std::vector<uint8_t> &v) const {
    return !ptr_ ||
           (v.size() == size_ && std::memcmp(ptr_, v.data(), size_) == 0);
  }

private:
  uint8_t *ptr_ = nullptr;
  size_t size_ = 0;
};

/// count * elem in bytes, or -1 if it overflows int64.
int64_t bytesOf(int64_t count, int64_t elem) {
  int64_t r;
  if (count < 0 || __builtin_mul_overflow(count, elem, &r))
    return -1;
  return r;
}

/// Elements spanned by a rows x cols matrix with leading dimension ld
/// (validated: rows, cols >= 0), or -1 on overflow.
int64_t matrixExtent(int64_t rows, int64_t cols, int64_t ld) {
  if (rows == 0 || cols == 0)
    return 0;
  int64_t e;
  if (__builtin_mul_overflow(rows - 1, ld, &e) ||
      __builtin_add_overflow(e, cols, &e))
    return -1;
  return e;
}

/// True if `count` elements of `elem` bytes fit in PTRDIFF_MAX bytes.
bool fits(int64_t count, int64_t elem) {
  const int64_t b = bytesOf(count, elem);
  return b >= 0 && b <= PTRDIFF_MAX;
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

class Decoder {
public:
  Decoder(const uint8_t *data, size_t size) : p_(data, size) {}
  bool empty() { return p_.remaining_bytes() == 0; }
  bool flag() { return p_.ConsumeBool(); }
  template <class T> T pick(T lo, T hi) {
    return p_.ConsumeIntegralInRange<T>(lo, hi);
  }

  /// A size: mostly small, sometimes negative, huge or at an overflow edge
  /// for elements of `elem` bytes.
  int64_t size(int64_t elem = 1) {
    switch (pick(0, 9)) {
    case 0:
    case 1:
    case 2:
    case 3:
      return pick<int64_t>(0, 8);
    case 4:
      return pick<int64_t>(0, 300);
    case 5:
      return pick<int64_t>(0, 70000);
    case 6:
      return flag() ? -pick<int64_t>(1, 4) : INT64_MIN;
    case 7: {
      const int64_t p = int64_t{1} << pick(0, 62);
      return wrapAdd(p, pick<int64_t>(-1, 1));
    }
    case 8:
      return wrapAdd(PTRDIFF_MAX / elem, pick<int64_t>(-1, 1));
    default:
      return p_.ConsumeIntegral<int64_t>();
    }
  }

  /// A leading dimension for `cols` columns.
  int64_t ld(int64_t cols) {
    switch (pick(0, 5)) {
    case 0:
    case 1:
    case 2:
      return cols > 0 ? cols : 1;
    case 3:
      return wrapAdd(cols > 0 ? cols : 1, pick<int64_t>(0, 5));
    case 4:
      return wrapAdd(cols, -pick<int64_t>(1, 2));
    default:
      return size();
    }
  }

  /// An int32 enum value: valid ones most of the time.
  int32_t enumValue(int32_t count) {
    switch (pick(0, 5)) {
    case 0:
      return -1;
    case 1:
      return flag() ? INT32_MIN : INT32_MAX;
    case 2:
      return p_.ConsumeIntegral<int32_t>();
    default:
      return pick<int32_t>(0, count - 1);
    }
  }

  int32_t int32() {
    switch (pick(0, 3)) {
    case 0:
      return pick<int32_t>(-130, 130);
    case 1:
      return pick<int32_t>(-2, 2);
    case 2:
      return flag() ? INT32_MIN : INT32_MAX;
    default:
      return p_.ConsumeIntegral<int32_t>();
    }
  }

  double real() {
    static const double kSpecial[] = {
        0.0,      -0.0,     1.0,       -1.0,         0.5,           2.0,
        1e-8,     65504.0,  65520.0,   0x1p-24,      1e30,          -1e30,
        FLT_MAX,  -FLT_MAX, FLT_MIN,   1e-45,        DBL_MAX,       DBL_MIN,
        4.9e-324, 1e308,    0x1p16,    0x1p24,       0x1p-149,      3.0,
        -127.0,   INFINITY, -INFINITY, std::nan(""), -std::nan(""), 0.999};
    switch (pick(0, 3)) {
    case 0:
    case 1:
      return kSpecial[pick<size_t>(0, sizeof(kSpecial) / sizeof(double) - 1)];
    case 2:
      return static_cast<double>(pick<int32_t>(-300, 300)) / 4.0;
    default: {
      const uint64_t b = p_.ConsumeIntegral<uint64_t>();
      double d;
      std::memcpy(&d, &b, sizeof d);
      return d;
    }
    }
  }
  float realF() {
    if (pick(0, 3) == 0) {
      const uint32_t b = p_.ConsumeIntegral<uint32_t>();
      float f;
      std::memcpy(&f, &b, sizeof f);
      return f;
    }
    return static_cast<float>(real());
  }

  void fill(float *d, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      d[i] = realF();
  }
  void fill(double *d, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      d[i] = real();
  }
  void fill(uint16_t *d, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      d[i] = p_.ConsumeIntegral<uint16_t>();
  }
  void fill(int8_t *d, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      d[i] = p_.ConsumeIntegral<int8_t>();
  }

private:
  FuzzedDataProvider p_;
};

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

template <class Src, class Dst> struct Conversion {
  mixrt_status_code (*bulk)(const Src *, int64_t, Dst *);
  Dst (*scalar)(Src);
  bool isChecked;
};

template <class Src, class Dst>
void fuzzConversion(Decoder &d, const Conversion<Src, Dst> &conv) {
  const int64_t count =
      d.size(sizeof(Src) > sizeof(Dst) ? sizeof(Src) : sizeof(Dst));
  const bool srcNull = d.pick(0, 7) == 0, dstNull = d.pick(0, 7) == 0;
  const int64_t elem = sizeof(Src) > sizeof(Dst) ? sizeof(Src) : sizeof(Dst);
  const bool valid =
      count >= 0 && fits(count, elem) && (count == 0 || (!srcNull && !dstNull));
  const int64_t total =
      valid ? bytesOf(count, sizeof(Src) + sizeof(Dst)) : int64_t{0};
  if (valid && (total < 0 || total > kCapBytes))
    return;
  Buffer src(valid ? count * sizeof(Src) : kTinyBytes, srcNull);
  Buffer dst(valid ? count * sizeof(Dst) : kTinyBytes, dstNull);
  if (valid && !srcNull)
    d.fill(src.as<Src>(), count);
  const int32_t c = checked(conv.bulk(src.as<Src>(), count, dst.as<Dst>()));
  if (!valid) {
    FUZZ_CHECK(c == MIXRT_STATUS_INVALID_ARGUMENT);
    FUZZ_CHECK(dst.untouched());
    return;
  }
  if (!conv.isChecked)
    FUZZ_CHECK(c == MIXRT_STATUS_OK);
  else
    FUZZ_CHECK(c == MIXRT_STATUS_OK || c == MIXRT_STATUS_INVALID_ARGUMENT ||
               c == MIXRT_STATUS_OUT_OF_RANGE);
  // Plain and checked variants write the whole output, equal to the scalar
  // conversion bit for bit.
  for (int64_t i = 0; i < count; ++i) {
    const Dst want = conv.scalar(src.as<Src>()[i]);
    FUZZ_CHECK(std::memcmp(&want, dst.as<Dst>() + i, sizeof(Dst)) == 0);
  }
}

void fuzzConversions(Decoder &d) {
  switch (d.pick(0, 9)) {
  case 0:
    return fuzzConversion<float, uint16_t>(
        d, {mixrt_f32_to_f16_array, mixrt_f32_to_f16, false});
  case 1:
    return fuzzConversion<uint16_t, float>(
        d, {mixrt_f16_to_f32_array, mixrt_f16_to_f32, false});
  case 2:
    return fuzzConversion<float, uint16_t>(
        d, {mixrt_f32_to_bf16_array, mixrt_f32_to_bf16, false});
  case 3:
    return fuzzConversion<uint16_t, float>(
        d, {mixrt_bf16_to_f32_array, mixrt_bf16_to_f32, false});
  case 4:
    return fuzzConversion<double, uint16_t>(
        d, {mixrt_f64_to_f16_array, mixrt_f64_to_f16, false});
  case 5:
    return fuzzConversion<double, uint16_t>(
        d, {mixrt_f64_to_bf16_array, mixrt_f64_to_bf16, false});
  case 6:
    return fuzzConversion<float, uint16_t>(
        d, {mixrt_f32_to_f16_array_checked, mixrt_f32_to_f16, true});
  case 7:
    return fuzzConversion<float, uint16_t>(
        d, {mixrt_f32_to_bf16_array_checked, mixrt_f32_to_bf16, true});
  case 8:
    return fuzzConversion<double, uint16_t>(
        d, {mixrt_f64_to_f16_array_checked, mixrt_f64_to_f16, true});
  default:
    return fuzzConversion<double, uint16_t>(
        d, {mixrt_f64_to_bf16_array_checked, mixrt_f64_to_bf16, true});
  }
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

struct State {
  mixrt_qtensor *qtensor = nullptr;
  mixrt_loss_scaler *scaler = nullptr;
  mixrt_optimizer *optimizer = nullptr;
  ~State() {
    mixrt_qtensor_destroy(qtensor);
    mixrt_loss_scaler_destroy(scaler);
    mixrt_optimizer_destroy(optimizer);
  }
};

void fuzzQuantize(Decoder &d, State &st) {
  const bool withParams = d.flag();
  const int32_t rank = d.pick(0, 7) == 0 ? d.int32() : d.pick<int32_t>(1, 4);
  const bool shapeNull = d.pick(0, 15) == 0;
  const int32_t scheme = d.enumValue(2);
  int32_t axis = MIXRT_PER_TENSOR;
  if (d.flag())
    axis = d.pick(0, 7) == 0 ? d.int32() : d.pick<int32_t>(-2, 4);
  const bool dataNull = d.pick(0, 15) == 0, scalesNull = d.pick(0, 15) == 0,
             zpNull = d.flag(), outNull = d.pick(0, 31) == 0;
  // The shape array is always real (up to 64 dims).
  if (!shapeNull && (rank < 0 || rank > 64))
    return;
  const int32_t dims = shapeNull || rank < 0 ? 0 : rank;
  std::vector<int64_t> shape(dims + 1);
  for (int32_t i = 0; i < dims; ++i)
    shape[i] = d.pick(0, 3) == 0 ? d.size(4) : d.pick<int64_t>(0, 6);

  // Model of the argument checks.
  bool invalid = outNull || scheme < 0 || scheme > 1 ||
                 (shapeNull && rank > 0) || rank < 1;
  int64_t count = 1;
  for (int32_t i = 0; i < dims && !invalid; ++i) {
    if (shape[i] < 0 || __builtin_mul_overflow(count, shape[i], &count))
      invalid = true;
  }
  if (!invalid && !fits(count, 4))
    invalid = true;
  if (!invalid && dataNull && count > 0)
    invalid = true;
  const bool axisValid = axis >= 0 && axis < rank;
  const int64_t channels = !invalid && axisValid ? shape[axis] : 1;
  if (!invalid && !fits(channels, 4))
    invalid = true;
  if (!invalid && withParams && scalesNull)
    invalid = true;
  if (!invalid && axis != MIXRT_PER_TENSOR && !axisValid)
    invalid = true;
  if (!invalid && count == 0)
    invalid = true; // Empty input.

  if (!invalid && (count > kCapBytes / 4 || channels > kCapBytes / 8 ||
                   count * 4 + channels * 8 > kCapBytes))
    return;
  Buffer data(invalid ? kTinyBytes : count * 4, dataNull);
  Buffer scales(invalid ? kTinyBytes : channels * 4, scalesNull);
  Buffer zps(invalid ? kTinyBytes : channels * 4, zpNull);
  if (!invalid) {
    d.fill(data.as<float>(), count);
    if (!scalesNull)
      for (int64_t c = 0; c < channels; ++c)
        scales.as<float>()[c] = d.pick(0, 3) ? 0.25f * d.pick(1, 8) : d.realF();
    if (!zpNull)
      for (int64_t c = 0; c < channels; ++c)
        zps.as<int32_t>()[c] = d.pick(0, 3) ? 0 : d.int32();
  }
  mixrt_qtensor *sentinel = reinterpret_cast<mixrt_qtensor *>(&st);
  mixrt_qtensor *out = sentinel;
  mixrt_qtensor **outPtr = outNull ? nullptr : &out;
  const mixrt_qscheme s = static_cast<mixrt_qscheme>(scheme);
  const int64_t *shapePtr = shapeNull ? nullptr : shape.data();
  const int32_t c = withParams
                        ? checked(mixrt_quantize_f32_with_params(
                              data.as<float>(), shapePtr, rank, s, axis,
                              scales.as<float>(), zps.as<int32_t>(), outPtr))
                        : checked(mixrt_quantize_f32(data.as<float>(), shapePtr,
                                                     rank, s, axis, outPtr));
  if (invalid)
    FUZZ_CHECK(c == MIXRT_STATUS_INVALID_ARGUMENT);
  else
    FUZZ_CHECK(c == MIXRT_STATUS_OK || c == MIXRT_STATUS_INVALID_ARGUMENT);
  if (outNull)
    return;
  if (c != MIXRT_STATUS_OK) {
    FUZZ_CHECK(out == nullptr);
    return;
  }
  FUZZ_CHECK(out != nullptr && out != sentinel);
  FUZZ_CHECK(mixrt_qtensor_num_elements(out) == count);
  FUZZ_CHECK(mixrt_qtensor_rank(out) == rank);
  FUZZ_CHECK(mixrt_qtensor_axis(out) == axis);
  FUZZ_CHECK(mixrt_qtensor_num_scales(out) == channels);
  FUZZ_CHECK(static_cast<int32_t>(mixrt_qtensor_scheme(out)) == scheme);
  const int32_t lo = scheme == MIXRT_QSCHEME_SYMMETRIC ? -127 : -128;
  for (int64_t i = 0; i < count; ++i)
    FUZZ_CHECK(mixrt_qtensor_data(out)[i] >= lo);
  for (int64_t ch = 0; ch < channels; ++ch) {
    const float sc = mixrt_qtensor_scales(out)[ch];
    FUZZ_CHECK(sc > 0.0f && std::isfinite(sc));
    const int32_t zp = mixrt_qtensor_zero_points(out)[ch];
    FUZZ_CHECK(zp >= -128 && zp <= 127);
  }
  mixrt_qtensor_destroy(st.qtensor);
  st.qtensor = out;
}

void fuzzDequantize(Decoder &d, State &st) {
  const bool tensorNull = !st.qtensor || d.pick(0, 15) == 0;
  const int64_t count = tensorNull ? 0 : mixrt_qtensor_num_elements(st.qtensor);
  const int64_t capacity =
      d.flag() ? count + d.pick<int64_t>(-1, 2) : d.size(4);
  const bool outNull = d.pick(0, 15) == 0;
  const bool invalid = tensorNull || capacity < 0 || !fits(capacity, 4) ||
                       outNull || capacity < count;
  if (!invalid && capacity * 4 > kCapBytes)
    return;
  Buffer out(invalid ? kTinyBytes : capacity * 4, outNull);
  const int32_t c = checked(mixrt_dequantize_f32(
      tensorNull ? nullptr : st.qtensor, out.as<float>(), capacity));
  if (invalid) {
    FUZZ_CHECK(c == MIXRT_STATUS_INVALID_ARGUMENT);
    FUZZ_CHECK(out.untouched());
    return;
  }
  FUZZ_CHECK(c == MIXRT_STATUS_OK || c == MIXRT_STATUS_OUT_OF_RANGE);
  // Elements past the tensor are never written.
  for (int64_t i = count * 4; i < capacity * 4; ++i)
    FUZZ_CHECK(out.as<uint8_t>()[i] == kCanary);
  if (c != MIXRT_STATUS_OK)
    return;
  const int64_t numScales = mixrt_qtensor_num_scales(st.qtensor);
  for (int64_t i = 0; i < count; ++i) {
    const float v = out.as<float>()[i];
    FUZZ_CHECK(std::isfinite(v));
    if (numScales == 1) {
      const float want =
          mixrt_qtensor_scales(st.qtensor)[0] *
          static_cast<float>(mixrt_qtensor_data(st.qtensor)[i] -
                             mixrt_qtensor_zero_points(st.qtensor)[0]);
      FUZZ_CHECK(v == want);
    }
  }
}

void fuzzQuantizeBuffer(Decoder &d) {
  const int64_t count = d.size(4);
  const int32_t scheme = d.enumValue(2);
  const float scale = d.pick(0, 2) ? 0.125f * d.pick(1, 16) : d.realF();
  const int32_t zp = d.pick(0, 2) ? 0 : d.int32();
  const bool dataNull = d.pick(0, 15) == 0, outNull = d.pick(0, 15) == 0;
  bool invalid = count < 0 || !fits(count, 4) ||
                 (count > 0 && (dataNull || outNull)) || scheme < 0 ||
                 scheme > 1 || count == 0 || !(scale > 0.0f) ||
                 !std::isfinite(scale) || zp < -128 || zp > 127 ||
                 (scheme == MIXRT_QSCHEME_SYMMETRIC && zp != 0);
  if (!invalid && count > kCapBytes / 5)
    return;
  Buffer data(invalid ? kTinyBytes : count * 4, dataNull);
  Buffer out(invalid ? kTinyBytes : count, outNull);
  if (!invalid) {
    d.fill(data.as<float>(), count);
    for (int64_t i = 0; i < count; ++i)
      invalid |= !std::isfinite(data.as<float>()[i]);
  }
  const int32_t c = checked(mixrt_quantize_f32_buffer(
      data.as<float>(), count, static_cast<mixrt_qscheme>(scheme), scale, zp,
      out.as<int8_t>()));
  if (invalid) {
    FUZZ_CHECK(c == MIXRT_STATUS_INVALID_ARGUMENT);
    FUZZ_CHECK(out.untouched());
    return;
  }
  FUZZ_CHECK(c == MIXRT_STATUS_OK);
  const float lo = scheme == MIXRT_QSCHEME_SYMMETRIC ? -127.0f : -128.0f;
  for (int64_t i = 0; i < count; ++i) {
    const float r =
        std::nearbyint(data.as<float>()[i] / scale) + static_cast<float>(zp);
    const int8_t want = static_cast<int8_t>(r <= lo       ? lo
                                            : r >= 127.0f ? 127.0f
                                                          : r);
    FUZZ_CHECK(out.as<int8_t>()[i] == want);
  }
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

/// Shapes and matrices of one GEMM as decoded, plus the validity model.
struct GemmArgs {
  int64_t m, n, k, lda, ldb, ldc;
  bool aNull, bNull, cNull;
  int64_t aExt = 0, bExt = 0, cExt = 0; // elements
  bool invalid = false;
};

GemmArgs decodeGemm(Decoder &d, int64_t aElem, int64_t bElem, int64_t cElem) {
  GemmArgs g;
  g.m = d.size(cElem);
  g.n = d.size(cElem);
  g.k = d.size(aElem);
  g.lda = d.ld(g.k);
  g.ldb = d.ld(g.n);
  g.ldc = d.ld(g.n);
  g.aNull = d.pick(0, 15) == 0;
  g.bNull = d.pick(0, 15) == 0;
  g.cNull = d.pick(0, 15) == 0;
  // A pointer is required only for a matrix the call accesses: A and B
  // when M, N and K are all > 0, C when it has elements.
  auto matrix = [&](int64_t rows, int64_t cols, int64_t ld, int64_t elem,
                    bool null, bool accessed, int64_t &ext) {
    if (ld < cols || ld < 1)
      return false;
    ext = matrixExtent(rows, cols, ld);
    if (ext < 0 || !fits(ext, elem))
      return false;
    return !(null && accessed && ext > 0);
  };
  const bool reads = g.m > 0 && g.n > 0 && g.k > 0;
  g.invalid = g.m < 0 || g.n < 0 || g.k < 0 ||
              !matrix(g.m, g.k, g.lda, aElem, g.aNull, reads, g.aExt) ||
              !matrix(g.k, g.n, g.ldb, bElem, g.bNull, reads, g.bExt) ||
              !matrix(g.m, g.n, g.ldc, cElem, g.cNull, true, g.cExt);
  return g;
}

/// True if a valid GEMM is small enough to run.
bool gemmFits(const GemmArgs &g, int64_t aElem, int64_t bElem, int64_t cElem) {
  // Extents are validated (each fits PTRDIFF_MAX bytes); the sum may not.
  int64_t total = 0;
  for (int64_t b : {g.aExt * aElem, g.bExt * bElem, g.cExt * cElem})
    if (__builtin_add_overflow(total, b, &total))
      return false;
  if (total > kCapBytes)
    return false;
  // The reference loops over every (m, n) and every k.
  int64_t ops;
  return g.m <= kCapBytes && g.n <= kCapBytes && g.k <= kCapBytes &&
         !__builtin_mul_overflow(g.m, g.n, &ops) && ops <= kMaxGemmOps &&
         !__builtin_mul_overflow(ops, g.k, &ops) && ops <= kMaxGemmOps;
}

/// The C elements outside the M x N result (padding) keep the canary.
template <class T> void checkPadding(const GemmArgs &g, const Buffer &c) {
  for (int64_t i = 0; i < g.cExt; ++i)
    if (i % g.ldc >= g.n) {
      const uint8_t *p = c.as<uint8_t>() + i * sizeof(T);
      for (size_t b = 0; b < sizeof(T); ++b)
        FUZZ_CHECK(p[b] == kCanary);
    }
}

void fuzzGemmS8S8S32(Decoder &d) {
  GemmArgs g = decodeGemm(d, 1, 1, 4);
  if (!g.invalid && !gemmFits(g, 1, 1, 4))
    return;
  Buffer a(g.invalid ? kTinyBytes : g.aExt, g.aNull);
  Buffer b(g.invalid ? kTinyBytes : g.bExt, g.bNull);
  Buffer c(g.invalid ? kTinyBytes : g.cExt * 4, g.cNull);
  if (!g.invalid) {
    if (!g.aNull)
      d.fill(a.as<int8_t>(), g.aExt);
    if (!g.bNull)
      d.fill(b.as<int8_t>(), g.bExt);
  }
  const int32_t st = checked(mixrt_gemm_s8s8s32(g.m, g.n, g.k, a.as<int8_t>(),
                                                g.lda, b.as<int8_t>(), g.ldb,
                                                c.as<int32_t>(), g.ldc));
  if (g.invalid) {
    FUZZ_CHECK(st == MIXRT_STATUS_INVALID_ARGUMENT);
    FUZZ_CHECK(c.untouched());
    return;
  }
  checkPadding<int32_t>(g, c);
  bool overflow = false;
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      int64_t sum = 0;
      for (int64_t kk = 0; kk < g.k; ++kk)
        sum += int64_t{a.as<int8_t>()[i * g.lda + kk]} *
               b.as<int8_t>()[kk * g.ldb + j];
      if (sum < INT32_MIN || sum > INT32_MAX)
        overflow = true;
      else if (st == MIXRT_STATUS_OK)
        FUZZ_CHECK(c.as<int32_t>()[i * g.ldc + j] == sum);
    }
  FUZZ_CHECK(st == (overflow ? MIXRT_STATUS_OUT_OF_RANGE : MIXRT_STATUS_OK));
}

/// One decoded mixrt_gemm_s8_operand with its buffers.
struct Operand {
  mixrt_gemm_s8_operand op{};
  Buffer scales, zps;
  bool invalid = false;
  bool skip = false; // valid per-channel arrays too large to provide
};

void decodeOperand(Decoder &d, Operand &o, int64_t channels, bool needScales,
                   bool tinyBuffers) {
  const int32_t perChannel = d.pick(0, 15) == 0 ? d.int32() : d.pick(0, 1);
  o.op.per_channel = perChannel;
  const bool scalesNull = d.pick(0, 7) == 0, zpNull = d.flag();
  if (perChannel != 0 && perChannel != 1) {
    o.invalid = true;
  }
  const int64_t count = perChannel == 1 ? channels : 1;
  if (!o.invalid && !fits(count, 4))
    o.invalid = true;
  const int64_t bytes = bytesOf(count, 8);
  o.skip = !o.invalid && (bytes < 0 || bytes > kCapBytes);
  const bool tiny = tinyBuffers || o.invalid || o.skip;
  o.scales = Buffer(tiny ? kTinyBytes : count * 4, scalesNull);
  o.zps = Buffer(tiny ? kTinyBytes : count * 4, zpNull);
  if (!tiny) {
    for (int64_t i = 0; i < count && !scalesNull; ++i) {
      const float s = d.pick(0, 5) ? 0.5f * d.pick(1, 4) : d.realF();
      o.scales.as<float>()[i] = s;
      if (needScales && !(s > 0.0f && std::isfinite(s)))
        o.invalid = true;
    }
    for (int64_t i = 0; i < count && !zpNull; ++i) {
      const int32_t z = d.pick(0, 3) ? d.pick(-3, 3) : d.int32();
      o.zps.as<int32_t>()[i] = z;
      if (z < -128 || z > 127)
        o.invalid = true;
    }
  }
  if (needScales && scalesNull)
    o.invalid = true;
  o.op.scales = o.scales.as<float>();
  o.op.zero_points = o.zps.as<int32_t>();
}

template <class T>
void fuzzGemmS8Quantized(Decoder &d,
                         mixrt_status_code (*fn)(int64_t, int64_t, int64_t,
                                                 const mixrt_gemm_s8_operand *,
                                                 const mixrt_gemm_s8_operand *,
                                                 T *, int64_t),
                         bool needScales) {
  GemmArgs g = decodeGemm(d, 1, 1, sizeof(T));
  const bool aNullOp = d.pick(0, 31) == 0, bNullOp = d.pick(0, 31) == 0;
  const bool fitsCap = !g.invalid && gemmFits(g, 1, 1, sizeof(T));
  Operand a, b;
  decodeOperand(d, a, g.m < 0 ? 0 : g.m, needScales, !fitsCap);
  decodeOperand(d, b, g.n < 0 ? 0 : g.n, needScales, !fitsCap);
  const bool invalid =
      g.invalid || a.invalid || b.invalid || aNullOp || bNullOp;
  if (!invalid && (!fitsCap || a.skip || b.skip))
    return;
  Buffer ad(invalid ? kTinyBytes : g.aExt, g.aNull);
  Buffer bd(invalid ? kTinyBytes : g.bExt, g.bNull);
  Buffer c(invalid ? kTinyBytes : g.cExt * sizeof(T), g.cNull);
  if (!invalid) {
    if (!g.aNull)
      d.fill(ad.as<int8_t>(), g.aExt);
    if (!g.bNull)
      d.fill(bd.as<int8_t>(), g.bExt);
  }
  a.op.data = ad.as<int8_t>();
  a.op.ld = g.lda;
  b.op.data = bd.as<int8_t>();
  b.op.ld = g.ldb;
  const int32_t st = checked(fn(g.m, g.n, g.k, aNullOp ? nullptr : &a.op,
                                bNullOp ? nullptr : &b.op, c.as<T>(), g.ldc));
  if (invalid) {
    FUZZ_CHECK(st == MIXRT_STATUS_INVALID_ARGUMENT);
    FUZZ_CHECK(c.untouched());
    return;
  }
  FUZZ_CHECK(st == MIXRT_STATUS_OK || st == MIXRT_STATUS_OUT_OF_RANGE);
  checkPadding<T>(g, c);
  auto zp = [](const Operand &o, int64_t ch) {
    return o.op.zero_points ? o.op.zero_points[o.op.per_channel ? ch : 0] : 0;
  };
  bool bad = false;
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      int64_t sum = 0;
      for (int64_t kk = 0; kk < g.k; ++kk)
        sum += (int64_t{ad.as<int8_t>()[i * g.lda + kk]} - zp(a, i)) *
               (int64_t{bd.as<int8_t>()[kk * g.ldb + j]} - zp(b, j));
      if (sum < INT32_MIN || sum > INT32_MAX) {
        bad = true;
        continue;
      }
      T want;
      if (needScales) {
        const double sa = a.op.scales[a.op.per_channel ? i : 0];
        const double sb = b.op.scales[b.op.per_channel ? j : 0];
        want = static_cast<T>(sa * sb * static_cast<double>(sum));
        if (!std::isfinite(static_cast<double>(want))) {
          bad = true;
          continue;
        }
      } else {
        want = static_cast<T>(sum);
      }
      if (st == MIXRT_STATUS_OK)
        FUZZ_CHECK(c.as<T>()[i * g.ldc + j] == want);
    }
  FUZZ_CHECK(st == (bad ? MIXRT_STATUS_OUT_OF_RANGE : MIXRT_STATUS_OK));
}

/// Rounds to the 16-bit format and back, as the reduced GEMM does.
float roundTo(int32_t format, float x) {
  return format == MIXRT_FORMAT_F16 ? mixrt_f16_to_f32(mixrt_f32_to_f16(x))
                                    : mixrt_bf16_to_f32(mixrt_f32_to_bf16(x));
}
float roundTo(int32_t format, double x) {
  return format == MIXRT_FORMAT_F16 ? mixrt_f16_to_f32(mixrt_f64_to_f16(x))
                                    : mixrt_bf16_to_f32(mixrt_f64_to_bf16(x));
}
float roundTo(int32_t format, uint16_t x) {
  return format == MIXRT_FORMAT_F16 ? mixrt_f16_to_f32(x)
                                    : mixrt_bf16_to_f32(x);
}

template <class T, class Out>
void fuzzGemmReduced(Decoder &d,
                     mixrt_status_code (*fn)(mixrt_float16_format, int64_t,
                                             int64_t, int64_t, const T *,
                                             int64_t, const T *, int64_t, Out *,
                                             int64_t)) {
  const int32_t format = d.enumValue(2);
  GemmArgs g = decodeGemm(d, sizeof(T), sizeof(T), sizeof(Out));
  const bool invalid = g.invalid || format < 0 || format > 1;
  if (!invalid && !gemmFits(g, sizeof(T), sizeof(T), sizeof(Out)))
    return;
  Buffer a(invalid ? kTinyBytes : g.aExt * sizeof(T), g.aNull);
  Buffer b(invalid ? kTinyBytes : g.bExt * sizeof(T), g.bNull);
  Buffer c(invalid ? kTinyBytes : g.cExt * sizeof(Out), g.cNull);
  if (!invalid) {
    if (!g.aNull)
      d.fill(a.as<T>(), g.aExt);
    if (!g.bNull)
      d.fill(b.as<T>(), g.bExt);
  }
  const int32_t st =
      checked(fn(static_cast<mixrt_float16_format>(format), g.m, g.n, g.k,
                 a.as<T>(), g.lda, b.as<T>(), g.ldb, c.as<Out>(), g.ldc));
  if (invalid) {
    FUZZ_CHECK(st == MIXRT_STATUS_INVALID_ARGUMENT);
    FUZZ_CHECK(c.untouched());
    return;
  }
  FUZZ_CHECK(st == MIXRT_STATUS_OK || st == MIXRT_STATUS_OUT_OF_RANGE);
  checkPadding<Out>(g, c);
  bool bad = false;
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      float acc = 0.0f;
      for (int64_t kk = 0; kk < g.k; ++kk)
        acc = std::fma(roundTo(format, a.as<T>()[i * g.lda + kk]),
                       roundTo(format, b.as<T>()[kk * g.ldb + j]), acc);
      if (!std::isfinite(acc)) {
        bad = true;
        continue;
      }
      if (st == MIXRT_STATUS_OK) {
        const Out want = static_cast<Out>(acc);
        FUZZ_CHECK(
            std::memcmp(&want, c.as<Out>() + i * g.ldc + j, sizeof(Out)) == 0);
      }
    }
  FUZZ_CHECK(st == (bad ? MIXRT_STATUS_OUT_OF_RANGE : MIXRT_STATUS_OK));
}

void fuzzGemms(Decoder &d) {
  switch (d.pick(0, 6)) {
  case 0:
    return fuzzGemmS8S8S32(d);
  case 1:
    return fuzzGemmS8Quantized<int32_t>(d, mixrt_gemm_s8_s32, false);
  case 2:
    return fuzzGemmS8Quantized<float>(d, mixrt_gemm_s8_f32, true);
  case 3:
    return fuzzGemmS8Quantized<double>(d, mixrt_gemm_s8_f64, true);
  case 4:
    return fuzzGemmReduced<float, float>(d, mixrt_gemm_reduced_f32);
  case 5:
    return fuzzGemmReduced<double, double>(d, mixrt_gemm_reduced_f64);
  default:
    return fuzzGemmReduced<uint16_t, float>(d, mixrt_gemm_reduced_u16_f32);
  }
}

//===----------------------------------------------------------------------===//
// Tensor lists: gradient norm / clip, loss scaler, optimizer
//===----------------------------------------------------------------------===//

/// A decoded (tensors, sizes, num_tensors) triple.
template <class T> struct TensorList {
  int64_t num = 0;
  std::vector<Buffer> tensors;
  Buffer ptrs, sizes;
  bool invalid = false;
  bool skip = false; // valid but too large to provide
  int64_t total = 0; // elements

  T *const *ptrArray() const { return ptrs.as<T *>(); }
  const int64_t *sizeArray() const { return sizes.as<int64_t>(); }

  void decode(Decoder &d, int64_t fixedNum = -1,
              const std::vector<int64_t> *fixedSizes = nullptr) {
    num = fixedNum >= 0 ? fixedNum
                        : (d.pick(0, 7) == 0 ? d.size(8) : d.pick(0, 4));
    const bool ptrsNull = d.pick(0, 15) == 0, sizesNull = d.pick(0, 15) == 0;
    if (num < 0 || !fits(num, 8) || (num > 0 && (ptrsNull || sizesNull))) {
      invalid = true;
      ptrs = Buffer(kTinyBytes, ptrsNull);
      sizes = Buffer(kTinyBytes, sizesNull);
      return;
    }
    if (num > 64) {
      skip = true;
      return;
    }
    ptrs = Buffer(num * sizeof(T *), ptrsNull);
    sizes = Buffer(num * 8, sizesNull);
    std::vector<int64_t> n(num);
    std::vector<bool> null(num);
    for (int64_t i = 0; i < num; ++i) {
      const bool known =
          fixedSizes && i < static_cast<int64_t>(fixedSizes->size());
      n[i] = known && d.pick(0, 7)
                 ? (*fixedSizes)[i]
                 : (d.pick(0, 3) ? d.pick<int64_t>(0, 6) : d.size(sizeof(T)));
      null[i] = d.pick(0, 15) == 0;
      if (n[i] < 0 || !fits(n[i], sizeof(T)) || (n[i] > 0 && null[i]))
        invalid = true;
      else if (__builtin_add_overflow(total, n[i], &total))
        invalid = true;
    }
    if (!invalid && bytesOf(total, sizeof(T)) > kCapBytes)
      skip = true;
    for (int64_t i = 0; i < num; ++i) {
      tensors.emplace_back(invalid || skip ? kTinyBytes : n[i] * sizeof(T),
                           null[i]);
      if (!invalid && !skip && !null[i])
        d.fill(tensors.back().template as<T>(), n[i]);
      ptrs.as<T *>()[i] = tensors.back().template as<T>();
      sizes.as<int64_t>()[i] = n[i];
    }
  }
  /// Snapshot of every element (to check "unchanged on failure").
  std::vector<std::vector<uint8_t>> snapshot() const {
    std::vector<std::vector<uint8_t>> s;
    for (const Buffer &b : tensors)
      s.push_back(b.copy());
    return s;
  }
  bool equals(const std::vector<std::vector<uint8_t>> &s) const {
    for (size_t i = 0; i < tensors.size(); ++i)
      if (!tensors[i].equals(s[i]))
        return false;
    return true;
  }
  bool allFinite() const {
    for (int64_t i = 0; i < num; ++i)
      for (int64_t j = 0; j < sizeArray()[i]; ++j)
        if (!std::isfinite(ptrArray()[i][j]))
          return false;
    return true;
  }
};

template <class T> void fuzzGradNorm(Decoder &d) {
  TensorList<T> list;
  list.decode(d);
  if (list.skip)
    return;
  const bool clip = d.flag();
  const double maxNorm = d.pick(0, 3) ? d.pick(0, 8) * 0.5 : d.real();
  const double eps = d.pick(0, 3) ? 1e-6 : d.real();
  const bool normNull = d.pick(0, 7) == 0, coefNull = d.pick(0, 3) == 0;
  double norm = -12345.0, coef = -12345.0;
  const auto before = list.snapshot();
  int32_t st;
  bool invalid = list.invalid;
  const bool nonFinite = !invalid && !list.allFinite();
  if (!clip) {
    invalid |= normNull;
    if constexpr (std::is_same_v<T, float>)
      st = checked(mixrt_grad_norm_f32(
          const_cast<const float *const *>(list.ptrArray()), list.sizeArray(),
          list.num, normNull ? nullptr : &norm));
    else
      st = checked(mixrt_grad_norm_f64(
          const_cast<const double *const *>(list.ptrArray()), list.sizeArray(),
          list.num, normNull ? nullptr : &norm));
  } else {
    invalid |= !std::isfinite(maxNorm) || maxNorm < 0 || !std::isfinite(eps) ||
               eps < 0;
    if constexpr (std::is_same_v<T, float>)
      st = checked(mixrt_clip_grad_norm_f32(
          list.ptrArray(), list.sizeArray(), list.num, maxNorm, eps,
          normNull ? nullptr : &norm, coefNull ? nullptr : &coef));
    else
      st = checked(mixrt_clip_grad_norm_f64(
          list.ptrArray(), list.sizeArray(), list.num, maxNorm, eps,
          normNull ? nullptr : &norm, coefNull ? nullptr : &coef));
  }
  invalid |= nonFinite;
  if (invalid)
    FUZZ_CHECK(st == MIXRT_STATUS_INVALID_ARGUMENT);
  else
    FUZZ_CHECK(st == MIXRT_STATUS_OK || st == MIXRT_STATUS_OUT_OF_RANGE);
  if (st != MIXRT_STATUS_OK) {
    FUZZ_CHECK(norm == -12345.0 && coef == -12345.0);
    FUZZ_CHECK(list.equals(before));
    return;
  }
  if (!normNull)
    FUZZ_CHECK(norm >= 0.0 && std::isfinite(norm));
  if (clip && !coefNull)
    FUZZ_CHECK(coef >= 0.0 && coef <= 1.0);
  if (clip && coef == 1.0)
    FUZZ_CHECK(list.equals(before));
}

mixrt_status_code callback(void *user) {
  return static_cast<mixrt_status_code>(*static_cast<int32_t *>(user));
}

void fuzzLossScaler(Decoder &d, State &st) {
  switch (d.pick(0, 5)) {
  case 0: { // create
    mixrt_loss_scaler_config config;
    mixrt_loss_scaler_config_init(&config);
    const bool useConfig = d.pick(0, 7) != 0;
    if (useConfig) {
      if (d.flag())
        config.initial_scale = d.real();
      if (d.flag())
        config.growth_factor = d.pick(0, 2) ? 2.0 : d.real();
      if (d.flag())
        config.backoff_factor = d.pick(0, 2) ? 0.5 : d.real();
      if (d.flag())
        config.growth_interval =
            d.pick(0, 2) ? d.pick<int64_t>(1, 3) : d.size();
      if (d.flag())
        config.max_scale = d.real();
      if (d.flag())
        config.min_scale = d.real();
    }
    const mixrt_loss_scaler_config &c = config;
    const bool invalid =
        useConfig &&
        (!(std::isfinite(c.initial_scale) && c.initial_scale > 0) ||
         !(std::isfinite(c.growth_factor) && c.growth_factor > 1) ||
         !(c.backoff_factor > 0 && c.backoff_factor < 1) ||
         c.growth_interval < 1 ||
         !(std::isfinite(c.max_scale) && c.max_scale >= c.initial_scale) ||
         !(std::isfinite(c.min_scale) && c.min_scale > 0 &&
           c.min_scale <= c.initial_scale));
    mixrt_loss_scaler *s = reinterpret_cast<mixrt_loss_scaler *>(&st);
    const int32_t code =
        checked(mixrt_loss_scaler_create(useConfig ? &config : nullptr, &s));
    FUZZ_CHECK(code ==
               (invalid ? MIXRT_STATUS_INVALID_ARGUMENT : MIXRT_STATUS_OK));
    if (code != MIXRT_STATUS_OK) {
      FUZZ_CHECK(s == nullptr);
      return;
    }
    mixrt_loss_scaler_destroy(st.scaler);
    st.scaler = s;
    return;
  }
  case 1: { // scale_loss
    const bool null = !st.scaler || d.pick(0, 15) == 0;
    const bool outNull = d.pick(0, 15) == 0;
    const double loss = d.real();
    double outD = -7.0;
    float outF = -7.0f;
    const bool f32 = d.flag();
    const int32_t code =
        f32 ? checked(mixrt_loss_scaler_scale_loss_f32(
                  null ? nullptr : st.scaler, static_cast<float>(loss),
                  outNull ? nullptr : &outF))
            : checked(mixrt_loss_scaler_scale_loss_f64(
                  null ? nullptr : st.scaler, loss, outNull ? nullptr : &outD));
    const bool lossFinite =
        f32 ? std::isfinite(static_cast<float>(loss)) : std::isfinite(loss);
    if (null || outNull || !lossFinite) {
      FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
    } else {
      FUZZ_CHECK(code == MIXRT_STATUS_OK || code == MIXRT_STATUS_OUT_OF_RANGE);
    }
    if (code != MIXRT_STATUS_OK)
      FUZZ_CHECK(outD == -7.0 && outF == -7.0f);
    return;
  }
  case 2: { // update
    const bool null = !st.scaler || d.pick(0, 15) == 0;
    const int32_t code = checked(
        mixrt_loss_scaler_update(null ? nullptr : st.scaler, d.int32()));
    FUZZ_CHECK(code ==
               (null ? MIXRT_STATUS_INVALID_ARGUMENT : MIXRT_STATUS_OK));
    break;
  }
  default: { // unscale f32/f64 or step
    const int kind = d.pick(0, 2);
    const bool null = !st.scaler || d.pick(0, 15) == 0;
    const bool outNull = d.pick(0, 15) == 0;
    int32_t out = -7;
    int32_t code;
    bool invalid = null || outNull;
    if (kind == 1) {
      TensorList<double> list;
      list.decode(d);
      if (list.skip)
        return;
      invalid |= list.invalid;
      code = checked(mixrt_loss_scaler_unscale_f64(
          null ? nullptr : st.scaler, list.ptrArray(), list.sizeArray(),
          list.num, outNull ? nullptr : &out));
    } else {
      TensorList<float> list;
      list.decode(d);
      if (list.skip)
        return;
      invalid |= list.invalid;
      if (kind == 0) {
        code = checked(mixrt_loss_scaler_unscale_f32(
            null ? nullptr : st.scaler, list.ptrArray(), list.sizeArray(),
            list.num, outNull ? nullptr : &out));
      } else {
        int32_t result = d.pick(0, 2) ? MIXRT_STATUS_OK : d.enumValue(14);
        const bool applyNull = d.pick(0, 15) == 0;
        invalid |= applyNull;
        code = checked(
            mixrt_loss_scaler_step_f32(null ? nullptr : st.scaler,
                                       list.ptrArray(), list.sizeArray(),
                                       list.num, applyNull ? nullptr : callback,
                                       &result, outNull ? nullptr : &out),
            /*allowInternal=*/!isStatus(result) ||
                result == MIXRT_STATUS_INTERNAL);
        if (!invalid && result != MIXRT_STATUS_OK && isStatus(result) &&
            result != MIXRT_STATUS_INTERNAL && code != MIXRT_STATUS_OK)
          FUZZ_CHECK(code == result);
        // The message of a failing callback never nests earlier ones.
        if (code != MIXRT_STATUS_OK && !invalid)
          FUZZ_CHECK(strnlen(mixrt_last_error_message(), 1024) < 1024);
      }
    }
    if (invalid)
      FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
    if (code != MIXRT_STATUS_OK)
      FUZZ_CHECK(out == -7);
    else
      FUZZ_CHECK(out == 0 || out == 1);
    break;
  }
  }
  if (st.scaler) {
    // The scale stays finite within [min_scale, max_scale].
    const double s = mixrt_loss_scaler_scale(st.scaler);
    FUZZ_CHECK(std::isfinite(s) && s > 0.0);
  }
}

void fuzzOptimizer(Decoder &d, State &st) {
  switch (d.pick(0, 3)) {
  case 0: { // create
    mixrt_optimizer_config config;
    mixrt_optimizer_config_init(
        static_cast<mixrt_optimizer_kind>(d.enumValue(2)), &config);
    if (d.flag())
      config.kind = static_cast<mixrt_optimizer_kind>(d.enumValue(2));
    if (d.flag())
      config.learning_rate = d.real();
    if (d.flag())
      config.weight_decay = d.pick(0, 1) ? 0.01 : d.real();
    if (d.flag())
      config.momentum = d.pick(0, 1) ? 0.9 : d.real();
    if (d.flag())
      config.dampening = d.real();
    if (d.flag())
      config.nesterov = d.int32();
    if (d.flag())
      config.beta1 = d.real();
    if (d.flag())
      config.beta2 = d.real();
    if (d.flag())
      config.epsilon = d.real();
    const bool configNull = d.pick(0, 15) == 0;
    mixrt_optimizer *o = reinterpret_cast<mixrt_optimizer *>(&st);
    const int32_t kind = static_cast<int32_t>(config.kind);
    const int32_t code =
        checked(mixrt_optimizer_create(configNull ? nullptr : &config, &o));
    if (configNull || kind < 0 || kind > 1)
      FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
    else
      FUZZ_CHECK(code == MIXRT_STATUS_OK ||
                 code == MIXRT_STATUS_INVALID_ARGUMENT);
    if (code != MIXRT_STATUS_OK) {
      FUZZ_CHECK(o == nullptr);
      return;
    }
    mixrt_optimizer_destroy(st.optimizer);
    st.optimizer = o;
    return;
  }
  case 1: { // add_param
    const bool null = !st.optimizer || d.pick(0, 15) == 0;
    const int64_t count = d.pick(0, 3) ? d.pick<int64_t>(0, 8) : d.size(8);
    const int32_t lowp = d.enumValue(4);
    const bool valuesNull = d.pick(0, 15) == 0, indexNull = d.pick(0, 7) == 0;
    bool invalid = null || count < 0 || !fits(count, 8) ||
                   (count > 0 && valuesNull) || lowp < 0 || lowp > 3 ||
                   count == 0;
    if (!invalid && count * 8 > kCapBytes)
      return;
    Buffer values(invalid ? kTinyBytes : count * 8, valuesNull);
    if (!invalid) {
      d.fill(values.as<double>(), count);
      for (int64_t i = 0; i < count; ++i)
        invalid |= !std::isfinite(values.as<double>()[i]);
    }
    const int64_t before = null ? 0 : mixrt_optimizer_num_params(st.optimizer);
    int64_t index = -7;
    const int32_t code = checked(mixrt_optimizer_add_param(
        null ? nullptr : st.optimizer, values.as<double>(), count,
        static_cast<mixrt_lowp_format>(lowp), indexNull ? nullptr : &index));
    if (invalid)
      FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
    else
      FUZZ_CHECK(code == MIXRT_STATUS_OK || code == MIXRT_STATUS_OUT_OF_RANGE);
    if (code != MIXRT_STATUS_OK) {
      FUZZ_CHECK(index == -7);
      if (!null)
        FUZZ_CHECK(mixrt_optimizer_num_params(st.optimizer) == before);
      return;
    }
    FUZZ_CHECK(mixrt_optimizer_num_params(st.optimizer) == before + 1);
    if (!indexNull)
      FUZZ_CHECK(index == before);
    FUZZ_CHECK(mixrt_optimizer_param_size(st.optimizer, before) == count);
    FUZZ_CHECK(static_cast<int32_t>(
                   mixrt_optimizer_lowp_format(st.optimizer, before)) == lowp);
    return;
  }
  default: { // step f32 / f64
    const bool null = !st.optimizer || d.pick(0, 15) == 0;
    const int64_t params = null ? 0 : mixrt_optimizer_num_params(st.optimizer);
    std::vector<int64_t> sizes(params);
    for (int64_t i = 0; i < params; ++i)
      sizes[i] = mixrt_optimizer_param_size(st.optimizer, i);
    // Snapshot of the masters and copies.
    std::vector<std::vector<double>> masters(params);
    for (int64_t i = 0; i < params; ++i)
      masters[i].assign(mixrt_optimizer_master(st.optimizer, i),
                        mixrt_optimizer_master(st.optimizer, i) + sizes[i]);
    const bool f32 = d.flag();
    const int64_t num = d.pick(0, 3) ? params : -1;
    int32_t code;
    bool invalid = null, finite = true;
    bool match = true;
    if (f32) {
      TensorList<float> list;
      list.decode(d, num, &sizes);
      if (list.skip)
        return;
      invalid |= list.invalid;
      finite = invalid || list.allFinite();
      match = !invalid && list.num == params;
      for (int64_t i = 0; match && i < params; ++i)
        match = list.sizeArray()[i] == sizes[i];
      code = checked(mixrt_optimizer_step_f32(
          null ? nullptr : st.optimizer,
          const_cast<const float *const *>(list.ptrArray()), list.sizeArray(),
          list.num));
    } else {
      TensorList<double> list;
      list.decode(d, num, &sizes);
      if (list.skip)
        return;
      invalid |= list.invalid;
      finite = invalid || list.allFinite();
      match = !invalid && list.num == params;
      for (int64_t i = 0; match && i < params; ++i)
        match = list.sizeArray()[i] == sizes[i];
      code = checked(mixrt_optimizer_step_f64(
          null ? nullptr : st.optimizer,
          const_cast<const double *const *>(list.ptrArray()), list.sizeArray(),
          list.num));
    }
    if (invalid || !match || !finite)
      FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
    else
      FUZZ_CHECK(code == MIXRT_STATUS_OK || code == MIXRT_STATUS_OUT_OF_RANGE);
    if (null)
      return;
    for (int64_t i = 0; i < params; ++i) {
      const double *m = mixrt_optimizer_master(st.optimizer, i);
      if (code != MIXRT_STATUS_OK) // All or nothing.
        FUZZ_CHECK(std::memcmp(m, masters[i].data(), sizes[i] * 8) == 0);
      const uint16_t *u = mixrt_optimizer_lowp_u16(st.optimizer, i);
      const int32_t lowp =
          static_cast<int32_t>(mixrt_optimizer_lowp_format(st.optimizer, i));
      for (int64_t j = 0; j < sizes[i]; ++j) {
        FUZZ_CHECK(std::isfinite(m[j]));
        if (lowp == MIXRT_LOWP_F16)
          FUZZ_CHECK(u[j] == mixrt_f64_to_f16(m[j]));
        else if (lowp == MIXRT_LOWP_BF16)
          FUZZ_CHECK(u[j] == mixrt_f64_to_bf16(m[j]));
      }
    }
    return;
  }
  }
}

//===----------------------------------------------------------------------===//
// Status, SIMD level, checks of generated code
//===----------------------------------------------------------------------===//

void fuzzMisc(Decoder &d) {
  switch (d.pick(0, 2)) {
  case 0: {
    const char *name =
        mixrt_status_code_name(static_cast<mixrt_status_code>(d.enumValue(14)));
    FUZZ_CHECK(name != nullptr);
    const size_t n = strnlen(name, 64);
    FUZZ_CHECK(n > 0 && n < 64);
    return;
  }
  case 1: {
    const int32_t level = d.enumValue(2);
    const int32_t code =
        checked(mixrt_set_simd_level(static_cast<mixrt_simd_level>(level)));
    if (level < 0 || level > 1)
      FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
    else if (level > static_cast<int32_t>(mixrt_cpu_simd_level()))
      FUZZ_CHECK(code == MIXRT_STATUS_UNIMPLEMENTED);
    else
      FUZZ_CHECK(code == MIXRT_STATUS_OK &&
                 static_cast<int32_t>(mixrt_get_simd_level()) == level);
    return;
  }
  default: {
    mixrt_check_reset();
    const int calls = d.pick(0, 4);
    for (int i = 0; i < calls; ++i)
      mixrt_check_fail(d.pick(0, 1) ? MIXRT_STATUS_OUT_OF_RANGE : d.int32(),
                       d.pick(0, 3) ? "model.mlir:1:2" : nullptr,
                       d.pick(0, 3) ? "checked cast" : nullptr,
                       static_cast<int64_t>(d.size()), d.real());
    FUZZ_CHECK(mixrt_check_failure_count() == calls);
    const int32_t code = static_cast<int32_t>(mixrt_check_status());
    FUZZ_CHECK(isStatus(code));
    FUZZ_CHECK((code == MIXRT_STATUS_OK) == (calls == 0));
    if (calls > 0) {
      const size_t n = strnlen(mixrt_last_error_message(), kMessageBound);
      FUZZ_CHECK(n > 0 && n < kMessageBound);
    }
    mixrt_check_reset();
    return;
  }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Decoder d(data, size);
  State st;
  // The SIMD path for this input (both give identical results).
  (void)mixrt_set_simd_level(d.flag() ? MIXRT_SIMD_PORTABLE
                                      : mixrt_cpu_simd_level());
  for (int step = 0; step < 8 && !d.empty(); ++step) {
    switch (d.pick(0, 8)) {
    case 0:
      fuzzConversions(d);
      break;
    case 1:
      fuzzQuantize(d, st);
      break;
    case 2:
      fuzzDequantize(d, st);
      break;
    case 3:
      fuzzQuantizeBuffer(d);
      break;
    case 4:
      fuzzGemms(d);
      break;
    case 5:
      if (d.flag())
        fuzzGradNorm<float>(d);
      else
        fuzzGradNorm<double>(d);
      break;
    case 6:
      fuzzLossScaler(d, st);
      break;
    case 7:
      fuzzOptimizer(d, st);
      break;
    default:
      fuzzMisc(d);
      break;
    }
  }
  return 0;
}
