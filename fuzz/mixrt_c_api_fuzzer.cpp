//===-- mixrt_c_api_fuzzer.cpp - libFuzzer target for the mixrt C API -----===//
//
// Decodes the input into a short sequence of C API calls (sizes, strides,
// enum values, scales, NaN/inf values, null pointers) on a few live handles
// and checks, after every call:
//
//  * the status is a mixrt_status_code value; on failure the message is a
//    nonempty NUL-terminated string shorter than kMessageBound;
//  * arguments that this file's independent model judges invalid (negative
//    or overflowing sizes, unknown enums, null pointers, bad configurations,
//    bad scales or zero points) give INVALID_ARGUMENT. Such calls get tiny
//    buffers: the library must reject them before reading;
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
// Layout: FuzzInput decodes typed arguments (sizes, leading dimensions,
// enum values, shapes, buffers of exactly the claimed size); kTargets has
// one row per C entry point (or pair of f32/f64 twins), and each row's
// function decodes its arguments with FuzzInput, models their validity,
// makes the call and checks the result.
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
#include <iterator>
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
/// Largest quantize rank given a real shape array.
constexpr int32_t kMaxRank = 64;
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
         c == MIXRT_STATUS_INTERNAL || c == MIXRT_STATUS_RESOURCE_EXHAUSTED ||
         // API version 8 (the trainer's file and state errors).
         c == MIXRT_STATUS_NOT_FOUND || c == MIXRT_STATUS_FAILED_PRECONDITION ||
         c == MIXRT_STATUS_UNAVAILABLE || c == MIXRT_STATUS_DATA_LOSS;
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
// Buffers and sizes
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
  bool null() const { return ptr_ == nullptr; }
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
    // memcmp must not see the null data() of an empty vector, even for 0
    // bytes (UBSan: nonnull attribute).
    return !ptr_ || size_ == 0 ||
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

/// True if `count` elements of `elem` bytes fit in PTRDIFF_MAX bytes.
bool fits(int64_t count, int64_t elem) {
  const int64_t b = bytesOf(count, elem);
  return b >= 0 && b <= PTRDIFF_MAX;
}

/// True if `count` (>= 0) elements of `elem` bytes exceed kCapBytes: a
/// valid call that large is skipped.
bool overCap(int64_t count, int64_t elem) {
  const int64_t b = bytesOf(count, elem);
  return b < 0 || b > kCapBytes;
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

/// An output of `count` elements of T filled with canary bytes: exactly
/// that large when the call is `valid`, else kTinyBytes; none if `null`.
template <class T> Buffer outputBuffer(int64_t count, bool null, bool valid) {
  return Buffer(valid ? static_cast<size_t>(count) * sizeof(T) : kTinyBytes,
                null);
}

/// A call the model judges invalid: INVALID_ARGUMENT, its outputs untouched.
void expectRejected(int32_t code,
                    std::initializer_list<const Buffer *> outputs = {}) {
  FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
  for (const Buffer *b : outputs)
    FUZZ_CHECK(b->untouched());
}

/// True if the `count` values at `p` are finite.
template <class T> bool allFinite(const T *p, int64_t count) {
  for (int64_t i = 0; p && i < count; ++i)
    if (!std::isfinite(p[i]))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

/// A quantize shape: `rank` as passed and a real array of max(rank, 0) + 1
/// dims (unless `null`).
struct Dims {
  int32_t rank = 0;
  bool null = false;
  bool skip = false; ///< a rank too large for a real array
  std::vector<int64_t> shape;
};

/// Shapes and matrices of one GEMM as decoded, plus the validity model.
struct GemmArgs {
  int64_t m, n, k, lda, ldb, ldc;
  bool aNull, bNull, cNull;
  int64_t aExt = 0, bExt = 0, cExt = 0; // elements
  bool invalid = false;
};

/// Reads typed C API arguments from the fuzzer's bytes.
class FuzzInput {
public:
  FuzzInput(const uint8_t *data, size_t size) : p_(data, size) {}
  bool empty() { return p_.remaining_bytes() == 0; }
  bool takeBool() { return p_.ConsumeBool(); }
  template <class T> T takeInRange(T lo, T hi) {
    return p_.ConsumeIntegralInRange<T>(lo, hi);
  }
  template <class T> T takeIntegral() { return p_.ConsumeIntegral<T>(); }
  /// True once in `n` times (a NULL pointer, a rare case).
  bool takeOneIn(int n) { return takeInRange(0, n - 1) == 0; }

  /// A size: mostly small, sometimes negative, huge or at an overflow edge
  /// for elements of `elem` bytes.
  int64_t takeSize(int64_t elem = 1) {
    switch (takeInRange(0, 9)) {
    case 0:
    case 1:
    case 2:
    case 3:
      return takeInRange<int64_t>(0, 8);
    case 4:
      return takeInRange<int64_t>(0, 300);
    case 5:
      return takeInRange<int64_t>(0, 70000);
    case 6:
      return takeBool() ? -takeInRange<int64_t>(1, 4) : INT64_MIN;
    case 7: {
      const int64_t p = int64_t{1} << takeInRange(0, 62);
      return wrapAdd(p, takeInRange<int64_t>(-1, 1));
    }
    case 8:
      return wrapAdd(PTRDIFF_MAX / elem, takeInRange<int64_t>(-1, 1));
    default:
      return takeIntegral<int64_t>();
    }
  }

  /// A small size most of the time (one in `oneIn` a takeSize(elem)).
  int64_t takeSmallSize(int64_t hi, int oneIn, int64_t elem) {
    return takeOneIn(oneIn) ? takeSize(elem) : takeInRange<int64_t>(0, hi);
  }

  /// A leading dimension for `cols` columns.
  int64_t takeLd(int64_t cols) {
    switch (takeInRange(0, 5)) {
    case 0:
    case 1:
    case 2:
      return cols > 0 ? cols : 1;
    case 3:
      return wrapAdd(cols > 0 ? cols : 1, takeInRange<int64_t>(0, 5));
    case 4:
      return wrapAdd(cols, -takeInRange<int64_t>(1, 2));
    default:
      return takeSize();
    }
  }

  /// An int32 enum value: valid ones most of the time.
  int32_t takeEnum(int32_t count) {
    switch (takeInRange(0, 5)) {
    case 0:
      return -1;
    case 1:
      return takeBool() ? INT32_MIN : INT32_MAX;
    case 2:
      return takeIntegral<int32_t>();
    default:
      return takeInRange<int32_t>(0, count - 1);
    }
  }

  int32_t takeInt32() {
    switch (takeInRange(0, 3)) {
    case 0:
      return takeInRange<int32_t>(-130, 130);
    case 1:
      return takeInRange<int32_t>(-2, 2);
    case 2:
      return takeBool() ? INT32_MIN : INT32_MAX;
    default:
      return takeIntegral<int32_t>();
    }
  }

  double takeReal() {
    static const double kSpecial[] = {
        0.0,      -0.0,     1.0,       -1.0,         0.5,           2.0,
        1e-8,     65504.0,  65520.0,   0x1p-24,      1e30,          -1e30,
        FLT_MAX,  -FLT_MAX, FLT_MIN,   1e-45,        DBL_MAX,       DBL_MIN,
        4.9e-324, 1e308,    0x1p16,    0x1p24,       0x1p-149,      3.0,
        -127.0,   INFINITY, -INFINITY, std::nan(""), -std::nan(""), 0.999};
    switch (takeInRange(0, 3)) {
    case 0:
    case 1:
      return kSpecial[takeInRange<size_t>(0, std::size(kSpecial) - 1)];
    case 2:
      return static_cast<double>(takeInRange<int32_t>(-300, 300)) / 4.0;
    default: {
      const uint64_t b = takeIntegral<uint64_t>();
      double d;
      std::memcpy(&d, &b, sizeof d);
      return d;
    }
    }
  }
  float takeRealF() {
    if (takeOneIn(4)) {
      const uint32_t b = takeIntegral<uint32_t>();
      float f;
      std::memcpy(&f, &b, sizeof f);
      return f;
    }
    return static_cast<float>(takeReal());
  }

  /// One element of a data buffer.
  template <class T> T takeValue() {
    if constexpr (std::is_same_v<T, float>)
      return takeRealF();
    else if constexpr (std::is_same_v<T, double>)
      return takeReal();
    else
      return takeIntegral<T>();
  }

  /// The arguments of a call taking `count` elements of T: a buffer of
  /// exactly `count` elements, each from `gen(*this)`, when the call is
  /// `valid`; kTinyBytes of canary otherwise (the call must not read it).
  /// No buffer at all if `null`.
  template <class T, class Gen>
  Buffer takeBuffer(int64_t count, bool null, bool valid, Gen gen) {
    Buffer b(valid ? static_cast<size_t>(count) * sizeof(T) : kTinyBytes, null);
    if (valid && !null)
      for (int64_t i = 0; i < count; ++i)
        b.as<T>()[i] = gen(*this);
    return b;
  }
  template <class T> Buffer takeBuffer(int64_t count, bool null, bool valid) {
    return takeBuffer<T>(count, null, valid,
                         [](FuzzInput &in) { return in.takeValue<T>(); });
  }

  /// A quantize rank (1 to 4, sometimes any int32) and its dims (mostly 0
  /// to 6, sometimes a takeSize()).
  Dims takeDims() {
    Dims d;
    d.rank = takeOneIn(8) ? takeInt32() : takeInRange<int32_t>(1, 4);
    d.null = takeOneIn(16);
    if (!d.null && (d.rank < 0 || d.rank > kMaxRank)) {
      d.skip = true;
      return d;
    }
    const int32_t n = d.null || d.rank < 0 ? 0 : d.rank;
    d.shape.resize(n + 1);
    for (int32_t i = 0; i < n; ++i)
      d.shape[i] = takeSmallSize(6, 4, 4);
    return d;
  }

  /// M, N, K, the leading dimensions and which of A, B, C are null, with
  /// the validity model of mixrt.h: every leading dimension >= max(cols, 1)
  /// and every extent within PTRDIFF_MAX bytes; A and B may be null unless
  /// M, N and K are all > 0, C unless it has elements.
  GemmArgs takeGemm(int64_t aElem, int64_t bElem, int64_t cElem) {
    GemmArgs g;
    g.m = takeSize(cElem);
    g.n = takeSize(cElem);
    g.k = takeSize(aElem);
    g.lda = takeLd(g.k);
    g.ldb = takeLd(g.n);
    g.ldc = takeLd(g.n);
    g.aNull = takeOneIn(16);
    g.bNull = takeOneIn(16);
    g.cNull = takeOneIn(16);
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

private:
  FuzzedDataProvider p_;
};

/// The live handles of one input.
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

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

template <class Src, class Dst>
void fuzzConversion(FuzzInput &in,
                    mixrt_status_code (*bulk)(const Src *, int64_t, Dst *),
                    Dst (*scalar)(Src), bool isChecked) {
  constexpr int64_t elem =
      sizeof(Src) > sizeof(Dst) ? sizeof(Src) : sizeof(Dst);
  const int64_t count = in.takeSize(elem);
  const bool srcNull = in.takeOneIn(8), dstNull = in.takeOneIn(8);
  const bool valid =
      count >= 0 && fits(count, elem) && (count == 0 || (!srcNull && !dstNull));
  if (valid && overCap(count, sizeof(Src) + sizeof(Dst)))
    return;
  const Buffer src = in.takeBuffer<Src>(count, srcNull, valid);
  const Buffer dst = outputBuffer<Dst>(count, dstNull, valid);
  const int32_t c = checked(bulk(src.as<Src>(), count, dst.as<Dst>()));
  if (!valid)
    return expectRejected(c, {&dst});
  if (!isChecked)
    FUZZ_CHECK(c == MIXRT_STATUS_OK);
  else
    FUZZ_CHECK(c == MIXRT_STATUS_OK || c == MIXRT_STATUS_INVALID_ARGUMENT ||
               c == MIXRT_STATUS_OUT_OF_RANGE);
  // Plain and checked variants write the whole output, equal to the scalar
  // conversion bit for bit.
  for (int64_t i = 0; i < count; ++i) {
    const Dst want = scalar(src.as<Src>()[i]);
    FUZZ_CHECK(std::memcmp(&want, dst.as<Dst>() + i, sizeof(Dst)) == 0);
  }
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

template <bool WithParams> void fuzzQuantize(FuzzInput &in, State &st) {
  const Dims dims = in.takeDims();
  const int32_t rank = dims.rank;
  const int32_t scheme = in.takeEnum(2);
  int32_t axis = MIXRT_PER_TENSOR;
  if (in.takeBool())
    axis = in.takeOneIn(8) ? in.takeInt32() : in.takeInRange<int32_t>(-2, 4);
  const bool dataNull = in.takeOneIn(16), scalesNull = in.takeOneIn(16),
             zpNull = in.takeBool(), outNull = in.takeOneIn(32);
  if (dims.skip)
    return;
  const int32_t numDims = dims.null || rank < 0 ? 0 : rank;

  // Model of the argument checks.
  bool invalid = outNull || scheme < 0 || scheme > 1 ||
                 (dims.null && rank > 0) || rank < 1;
  int64_t count = 1;
  for (int32_t i = 0; i < numDims && !invalid; ++i) {
    if (dims.shape[i] < 0 ||
        __builtin_mul_overflow(count, dims.shape[i], &count))
      invalid = true;
  }
  if (!invalid && !fits(count, 4))
    invalid = true;
  if (!invalid && dataNull && count > 0)
    invalid = true;
  const bool axisValid = axis >= 0 && axis < rank;
  const int64_t channels = !invalid && axisValid ? dims.shape[axis] : 1;
  if (!invalid && !fits(channels, 4))
    invalid = true;
  if (!invalid && WithParams && scalesNull)
    invalid = true;
  if (!invalid && axis != MIXRT_PER_TENSOR && !axisValid)
    invalid = true;
  if (!invalid && count == 0)
    invalid = true; // Empty input.

  if (!invalid && (overCap(count, 4) || overCap(channels, 8) ||
                   count * 4 + channels * 8 > kCapBytes))
    return;
  // The parameters first: with a bad one the data buffer is tiny, since it
  // must be rejected before the data is read.
  const Buffer scales =
      in.takeBuffer<float>(channels, scalesNull, !invalid, [](FuzzInput &i) {
        return i.takeInRange(0, 3) ? 0.25f * i.takeInRange(1, 8)
                                   : i.takeRealF();
      });
  const Buffer zps =
      in.takeBuffer<int32_t>(channels, zpNull, !invalid, [](FuzzInput &i) {
        return i.takeInRange(0, 3) ? 0 : i.takeInt32();
      });
  bool badParams = false;
  for (int64_t c = 0; WithParams && !invalid && c < channels; ++c) {
    const float s = scales.as<float>()[c];
    badParams |= !(s > 0.0f) || !std::isfinite(s);
    if (!zps.null()) {
      const int32_t z = zps.as<int32_t>()[c];
      badParams |=
          z < -128 || z > 127 || (scheme == MIXRT_QSCHEME_SYMMETRIC && z != 0);
    }
  }
  invalid |= badParams;
  const Buffer data = in.takeBuffer<float>(count, dataNull, !invalid);
  // Non-finite input is rejected too, after reading it.
  const bool nonFinite = !invalid && !allFinite(data.as<float>(), count);

  mixrt_qtensor *sentinel = reinterpret_cast<mixrt_qtensor *>(&st);
  mixrt_qtensor *out = sentinel;
  mixrt_qtensor **outPtr = outNull ? nullptr : &out;
  const mixrt_qscheme s = static_cast<mixrt_qscheme>(scheme);
  const int64_t *shapePtr = dims.null ? nullptr : dims.shape.data();
  const int32_t c = WithParams
                        ? checked(mixrt_quantize_f32_with_params(
                              data.as<float>(), shapePtr, rank, s, axis,
                              scales.as<float>(), zps.as<int32_t>(), outPtr))
                        : checked(mixrt_quantize_f32(data.as<float>(), shapePtr,
                                                     rank, s, axis, outPtr));
  FUZZ_CHECK(c == (invalid || nonFinite ? MIXRT_STATUS_INVALID_ARGUMENT
                                        : MIXRT_STATUS_OK));
  if (outNull)
    return;
  if (c != MIXRT_STATUS_OK) {
    FUZZ_CHECK(out == nullptr);
    return;
  }
  FUZZ_CHECK(out != nullptr && out != sentinel);
  FUZZ_CHECK(mixrt_qtensor_num_elements(out) == count);
  FUZZ_CHECK(mixrt_qtensor_rank(out) == rank);
  FUZZ_CHECK(std::memcmp(mixrt_qtensor_shape(out), dims.shape.data(),
                         sizeof(int64_t) * rank) == 0);
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
    if (WithParams) {
      FUZZ_CHECK(sc == scales.as<float>()[ch]);
      FUZZ_CHECK(zp == (zps.null() ? 0 : zps.as<int32_t>()[ch]));
    }
  }
  mixrt_qtensor_destroy(st.qtensor);
  st.qtensor = out;
}

void fuzzDequantize(FuzzInput &in, State &st) {
  const bool tensorNull = !st.qtensor || in.takeOneIn(16);
  const int64_t count = tensorNull ? 0 : mixrt_qtensor_num_elements(st.qtensor);
  const int64_t capacity =
      in.takeBool() ? count + in.takeInRange<int64_t>(-1, 2) : in.takeSize(4);
  const bool outNull = in.takeOneIn(16);
  const bool invalid = tensorNull || capacity < 0 || !fits(capacity, 4) ||
                       outNull || capacity < count;
  if (!invalid && overCap(capacity, 4))
    return;
  const Buffer out = outputBuffer<float>(capacity, outNull, !invalid);
  const int32_t c = checked(mixrt_dequantize_f32(
      tensorNull ? nullptr : st.qtensor, out.as<float>(), capacity));
  if (invalid)
    return expectRejected(c, {&out});
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

void fuzzQuantizeBuffer(FuzzInput &in, State &) {
  const int64_t count = in.takeSize(4);
  const int32_t scheme = in.takeEnum(2);
  const float scale =
      in.takeInRange(0, 2) ? 0.125f * in.takeInRange(1, 16) : in.takeRealF();
  const int32_t zp = in.takeInRange(0, 2) ? 0 : in.takeInt32();
  const bool dataNull = in.takeOneIn(16), outNull = in.takeOneIn(16);
  bool invalid = count < 0 || !fits(count, 4) ||
                 (count > 0 && (dataNull || outNull)) || scheme < 0 ||
                 scheme > 1 || count == 0 || !(scale > 0.0f) ||
                 !std::isfinite(scale) || zp < -128 || zp > 127 ||
                 (scheme == MIXRT_QSCHEME_SYMMETRIC && zp != 0);
  if (!invalid && overCap(count, 5))
    return;
  const Buffer data = in.takeBuffer<float>(count, dataNull, !invalid);
  const Buffer out = outputBuffer<int8_t>(count, outNull, !invalid);
  invalid |= !invalid && !allFinite(data.as<float>(), count);
  const int32_t c = checked(mixrt_quantize_f32_buffer(
      data.as<float>(), count, static_cast<mixrt_qscheme>(scheme), scale, zp,
      out.as<int8_t>()));
  if (invalid)
    return expectRejected(c, {&out});
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

/// True if a valid GEMM is small enough to run: the buffers that exist fit
/// kCapBytes and the reference's multiply-adds kMaxGemmOps. An empty result
/// (M or N = 0) costs nothing however large the other dimensions are.
bool gemmFits(const GemmArgs &g, int64_t aElem, int64_t bElem, int64_t cElem) {
  // Extents are validated (each fits PTRDIFF_MAX bytes); the sum may not.
  int64_t total = 0;
  const struct {
    int64_t ext, elem;
    bool null;
  } buffers[] = {{g.aExt, aElem, g.aNull},
                 {g.bExt, bElem, g.bNull},
                 {g.cExt, cElem, g.cNull}};
  for (const auto &b : buffers)
    if (!b.null && __builtin_add_overflow(total, b.ext * b.elem, &total))
      return false;
  if (total > kCapBytes)
    return false;
  if (g.m == 0 || g.n == 0)
    return true;
  // The reference loops over every (m, n) and every k.
  int64_t ops;
  return g.m <= kCapBytes && g.n <= kCapBytes && g.k <= kCapBytes &&
         !__builtin_mul_overflow(g.m, g.n, &ops) && ops <= kMaxGemmOps &&
         !__builtin_mul_overflow(ops, g.k, &ops) && ops <= kMaxGemmOps;
}

/// The operand buffers of a GEMM: tiny if invalid, else exactly their
/// extents, filled from the input (none for a null operand).
template <class T>
void takeGemmOperands(FuzzInput &in, const GemmArgs &g, bool invalid, Buffer &a,
                      Buffer &b) {
  a = in.takeBuffer<T>(g.aExt, g.aNull, !invalid);
  b = in.takeBuffer<T>(g.bExt, g.bNull, !invalid);
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

/// Calls ref(i, j) for every output of a validated, fitting GEMM (none when
/// M or N is 0, however large the other one is).
template <class Fn> void forEachOutput(const GemmArgs &g, Fn &&ref) {
  if (g.m == 0 || g.n == 0)
    return;
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j)
      ref(i, j);
}

void fuzzGemmS8S8S32(FuzzInput &in, State &) {
  const GemmArgs g = in.takeGemm(1, 1, 4);
  if (!g.invalid && !gemmFits(g, 1, 1, 4))
    return;
  Buffer a, b;
  takeGemmOperands<int8_t>(in, g, g.invalid, a, b);
  const Buffer c = outputBuffer<int32_t>(g.cExt, g.cNull, !g.invalid);
  const int32_t st = checked(mixrt_gemm_s8s8s32(g.m, g.n, g.k, a.as<int8_t>(),
                                                g.lda, b.as<int8_t>(), g.ldb,
                                                c.as<int32_t>(), g.ldc));
  if (g.invalid)
    return expectRejected(st, {&c});
  checkPadding<int32_t>(g, c);
  bool overflow = false;
  forEachOutput(g, [&](int64_t i, int64_t j) {
    int64_t sum = 0;
    for (int64_t kk = 0; kk < g.k; ++kk)
      sum += int64_t{a.as<int8_t>()[i * g.lda + kk]} *
             b.as<int8_t>()[kk * g.ldb + j];
    if (sum < INT32_MIN || sum > INT32_MAX)
      overflow = true;
    else if (st == MIXRT_STATUS_OK)
      FUZZ_CHECK(c.as<int32_t>()[i * g.ldc + j] == sum);
  });
  FUZZ_CHECK(st == (overflow ? MIXRT_STATUS_OUT_OF_RANGE : MIXRT_STATUS_OK));
}

/// One decoded mixrt_gemm_s8_operand with its buffers.
struct Operand {
  mixrt_gemm_s8_operand op{};
  Buffer scales, zps;
  bool invalid = false;
  bool skip = false; // valid per-channel arrays too large to provide
};

void takeOperand(FuzzInput &in, Operand &o, int64_t channels, bool needScales,
                 bool tinyBuffers) {
  const int32_t perChannel =
      in.takeOneIn(16) ? in.takeInt32() : in.takeInRange(0, 1);
  o.op.per_channel = perChannel;
  const bool scalesNull = in.takeOneIn(8), zpNull = in.takeBool();
  if (perChannel != 0 && perChannel != 1)
    o.invalid = true;
  const int64_t count = perChannel == 1 ? channels : 1;
  if (!o.invalid && !fits(count, 4))
    o.invalid = true;
  o.skip = !o.invalid && overCap(count, 8);
  const bool real = !(tinyBuffers || o.invalid || o.skip);
  o.scales = in.takeBuffer<float>(count, scalesNull, real, [](FuzzInput &i) {
    return i.takeInRange(0, 5) ? 0.5f * i.takeInRange(1, 4) : i.takeRealF();
  });
  o.zps = in.takeBuffer<int32_t>(count, zpNull, real, [](FuzzInput &i) {
    return i.takeInRange(0, 3) ? i.takeInRange(-3, 3) : i.takeInt32();
  });
  for (int64_t i = 0; real && i < count; ++i) {
    if (!scalesNull && needScales &&
        !(o.scales.as<float>()[i] > 0.0f &&
          std::isfinite(o.scales.as<float>()[i])))
      o.invalid = true;
    if (!zpNull &&
        (o.zps.as<int32_t>()[i] < -128 || o.zps.as<int32_t>()[i] > 127))
      o.invalid = true;
  }
  // Per channel with no channels there are no scales: NULL is fine.
  if (needScales && scalesNull && count > 0)
    o.invalid = true;
  o.op.scales = o.scales.as<float>();
  o.op.zero_points = o.zps.as<int32_t>();
}

template <class T>
void fuzzGemmS8Quantized(FuzzInput &in,
                         mixrt_status_code (*fn)(int64_t, int64_t, int64_t,
                                                 const mixrt_gemm_s8_operand *,
                                                 const mixrt_gemm_s8_operand *,
                                                 T *, int64_t),
                         bool needScales) {
  const GemmArgs g = in.takeGemm(1, 1, sizeof(T));
  const bool aNullOp = in.takeOneIn(32), bNullOp = in.takeOneIn(32);
  const bool fitsCap = !g.invalid && gemmFits(g, 1, 1, sizeof(T));
  Operand a, b;
  takeOperand(in, a, g.m < 0 ? 0 : g.m, needScales, !fitsCap);
  takeOperand(in, b, g.n < 0 ? 0 : g.n, needScales, !fitsCap);
  const bool invalid =
      g.invalid || a.invalid || b.invalid || aNullOp || bNullOp;
  if (!invalid && (!fitsCap || a.skip || b.skip))
    return;
  Buffer ad, bd;
  takeGemmOperands<int8_t>(in, g, invalid, ad, bd);
  const Buffer c = outputBuffer<T>(g.cExt, g.cNull, !invalid);
  a.op.data = ad.as<int8_t>();
  a.op.ld = g.lda;
  b.op.data = bd.as<int8_t>();
  b.op.ld = g.ldb;
  const int32_t st = checked(fn(g.m, g.n, g.k, aNullOp ? nullptr : &a.op,
                                bNullOp ? nullptr : &b.op, c.as<T>(), g.ldc));
  if (invalid)
    return expectRejected(st, {&c});
  FUZZ_CHECK(st == MIXRT_STATUS_OK || st == MIXRT_STATUS_OUT_OF_RANGE);
  checkPadding<T>(g, c);
  auto zp = [](const Operand &o, int64_t ch) {
    return o.op.zero_points ? o.op.zero_points[o.op.per_channel ? ch : 0] : 0;
  };
  bool bad = false;
  forEachOutput(g, [&](int64_t i, int64_t j) {
    int64_t sum = 0;
    for (int64_t kk = 0; kk < g.k; ++kk)
      sum += (int64_t{ad.as<int8_t>()[i * g.lda + kk]} - zp(a, i)) *
             (int64_t{bd.as<int8_t>()[kk * g.ldb + j]} - zp(b, j));
    if (sum < INT32_MIN || sum > INT32_MAX) {
      bad = true;
      return;
    }
    T want;
    if (needScales) {
      const double sa = a.op.scales[a.op.per_channel ? i : 0];
      const double sb = b.op.scales[b.op.per_channel ? j : 0];
      want = static_cast<T>(sa * sb * static_cast<double>(sum));
      if (!std::isfinite(static_cast<double>(want))) {
        bad = true;
        return;
      }
    } else {
      want = static_cast<T>(sum);
    }
    if (st == MIXRT_STATUS_OK)
      FUZZ_CHECK(c.as<T>()[i * g.ldc + j] == want);
  });
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
void fuzzGemmReduced(FuzzInput &in,
                     mixrt_status_code (*fn)(mixrt_float16_format, int64_t,
                                             int64_t, int64_t, const T *,
                                             int64_t, const T *, int64_t, Out *,
                                             int64_t)) {
  const int32_t format = in.takeEnum(2);
  const GemmArgs g = in.takeGemm(sizeof(T), sizeof(T), sizeof(Out));
  const bool invalid = g.invalid || format < 0 || format > 1;
  if (!invalid && !gemmFits(g, sizeof(T), sizeof(T), sizeof(Out)))
    return;
  Buffer a, b;
  takeGemmOperands<T>(in, g, invalid, a, b);
  const Buffer c = outputBuffer<Out>(g.cExt, g.cNull, !invalid);
  const int32_t st =
      checked(fn(static_cast<mixrt_float16_format>(format), g.m, g.n, g.k,
                 a.as<T>(), g.lda, b.as<T>(), g.ldb, c.as<Out>(), g.ldc));
  if (invalid)
    return expectRejected(st, {&c});
  FUZZ_CHECK(st == MIXRT_STATUS_OK || st == MIXRT_STATUS_OUT_OF_RANGE);
  checkPadding<Out>(g, c);
  bool bad = false;
  forEachOutput(g, [&](int64_t i, int64_t j) {
    float acc = 0.0f;
    for (int64_t kk = 0; kk < g.k; ++kk)
      acc = std::fma(roundTo(format, a.as<T>()[i * g.lda + kk]),
                     roundTo(format, b.as<T>()[kk * g.ldb + j]), acc);
    if (!std::isfinite(acc)) {
      bad = true;
      return;
    }
    if (st == MIXRT_STATUS_OK) {
      const Out want = static_cast<Out>(acc);
      FUZZ_CHECK(std::memcmp(&want, c.as<Out>() + i * g.ldc + j, sizeof(Out)) ==
                 0);
    }
  });
  FUZZ_CHECK(st == (bad ? MIXRT_STATUS_OUT_OF_RANGE : MIXRT_STATUS_OK));
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

  /// `fixedNum` >= 0 fixes the count; `fixedSizes` are used (most of the
  /// time) for the first sizes (an optimizer's parameter sizes).
  void take(FuzzInput &in, int64_t fixedNum = -1,
            const std::vector<int64_t> *fixedSizes = nullptr) {
    num = fixedNum >= 0 ? fixedNum
                        : (in.takeOneIn(8) ? in.takeSize(8)
                                           : in.takeInRange<int64_t>(0, 4));
    const bool ptrsNull = in.takeOneIn(16), sizesNull = in.takeOneIn(16);
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
      n[i] = known && in.takeInRange(0, 7) ? (*fixedSizes)[i]
                                           : in.takeSmallSize(6, 4, sizeof(T));
      null[i] = in.takeOneIn(16);
      if (n[i] < 0 || !fits(n[i], sizeof(T)) || (n[i] > 0 && null[i]))
        invalid = true;
      else if (__builtin_add_overflow(total, n[i], &total))
        total = INT64_MAX; // Valid: each size fits, only the sum does not.
    }
    if (!invalid && overCap(total, sizeof(T)))
      skip = true;
    for (int64_t i = 0; i < num; ++i) {
      tensors.push_back(in.takeBuffer<T>(n[i], null[i], !invalid && !skip));
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
      if (!::allFinite(ptrArray()[i], sizeArray()[i]))
        return false;
    return true;
  }
};

template <class T, bool Clip> void fuzzGradNorm(FuzzInput &in, State &) {
  TensorList<T> list;
  list.take(in);
  if (list.skip)
    return;
  const double maxNorm =
      in.takeInRange(0, 3) ? in.takeInRange(0, 8) * 0.5 : in.takeReal();
  const double eps = in.takeInRange(0, 3) ? 1e-6 : in.takeReal();
  const bool normNull = in.takeOneIn(8), coefNull = in.takeOneIn(4);
  double norm = -12345.0, coef = -12345.0;
  const auto before = list.snapshot();
  int32_t st;
  bool invalid = list.invalid;
  const bool nonFinite = !invalid && !list.allFinite();
  if (!Clip) {
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
  if (Clip && !coefNull)
    FUZZ_CHECK(coef >= 0.0 && coef <= 1.0);
  if (Clip && coef == 1.0)
    FUZZ_CHECK(list.equals(before));
}

//===----------------------------------------------------------------------===//
// Loss scaler
//===----------------------------------------------------------------------===//

/// The scaler's state after any call: a finite positive scale and a growth
/// tracker in [0, growth_interval).
void checkScaler(const State &st) {
  if (!st.scaler)
    return;
  const double s = mixrt_loss_scaler_scale(st.scaler);
  FUZZ_CHECK(std::isfinite(s) && s > 0.0);
  FUZZ_CHECK(mixrt_loss_scaler_growth_tracker(st.scaler) >= 0);
}

/// The scaler argument of a call: the live one, sometimes NULL.
mixrt_loss_scaler *takeScaler(FuzzInput &in, const State &st) {
  return !st.scaler || in.takeOneIn(16) ? nullptr : st.scaler;
}

void fuzzLossScalerCreate(FuzzInput &in, State &st) {
  mixrt_loss_scaler_config config;
  mixrt_loss_scaler_config_init(&config);
  const bool useConfig = !in.takeOneIn(8);
  if (useConfig) {
    if (in.takeBool())
      config.initial_scale = in.takeReal();
    if (in.takeBool())
      config.growth_factor = in.takeInRange(0, 2) ? 2.0 : in.takeReal();
    if (in.takeBool())
      config.backoff_factor = in.takeInRange(0, 2) ? 0.5 : in.takeReal();
    if (in.takeBool())
      config.growth_interval =
          in.takeInRange(0, 2) ? in.takeInRange<int64_t>(1, 3) : in.takeSize();
    if (in.takeBool())
      config.max_scale = in.takeReal();
    if (in.takeBool())
      config.min_scale = in.takeReal();
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
  FUZZ_CHECK(mixrt_loss_scaler_growth_tracker(s) == 0);
  mixrt_loss_scaler_destroy(st.scaler);
  st.scaler = s;
  checkScaler(st);
}

void fuzzLossScalerScaleLoss(FuzzInput &in, State &st) {
  mixrt_loss_scaler *scaler = takeScaler(in, st);
  const bool outNull = in.takeOneIn(16);
  const double loss = in.takeReal();
  double outD = -7.0;
  float outF = -7.0f;
  const bool f32 = in.takeBool();
  const int32_t code =
      f32 ? checked(mixrt_loss_scaler_scale_loss_f32(
                scaler, static_cast<float>(loss), outNull ? nullptr : &outF))
          : checked(mixrt_loss_scaler_scale_loss_f64(
                scaler, loss, outNull ? nullptr : &outD));
  const bool lossFinite =
      f32 ? std::isfinite(static_cast<float>(loss)) : std::isfinite(loss);
  if (!scaler || outNull || !lossFinite)
    FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
  else
    FUZZ_CHECK(code == MIXRT_STATUS_OK || code == MIXRT_STATUS_OUT_OF_RANGE);
  if (code != MIXRT_STATUS_OK)
    FUZZ_CHECK(outD == -7.0 && outF == -7.0f);
  checkScaler(st);
}

void fuzzLossScalerUpdate(FuzzInput &in, State &st) {
  mixrt_loss_scaler *scaler = takeScaler(in, st);
  const int32_t code =
      checked(mixrt_loss_scaler_update(scaler, in.takeInt32()));
  FUZZ_CHECK(code ==
             (!scaler ? MIXRT_STATUS_INVALID_ARGUMENT : MIXRT_STATUS_OK));
  checkScaler(st);
}

/// *out_found_inf / *out_skipped: untouched on failure, else 0 or 1.
void checkFlag(int32_t code, bool invalid, int32_t out) {
  if (invalid)
    FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
  if (code != MIXRT_STATUS_OK)
    FUZZ_CHECK(out == -7);
  else
    FUZZ_CHECK(out == 0 || out == 1);
}

template <class T> void fuzzLossScalerUnscale(FuzzInput &in, State &st) {
  mixrt_loss_scaler *scaler = takeScaler(in, st);
  const bool outNull = in.takeOneIn(16);
  TensorList<T> list;
  list.take(in);
  if (list.skip)
    return;
  int32_t out = -7;
  int32_t code;
  if constexpr (std::is_same_v<T, float>)
    code = checked(mixrt_loss_scaler_unscale_f32(scaler, list.ptrArray(),
                                                 list.sizeArray(), list.num,
                                                 outNull ? nullptr : &out));
  else
    code = checked(mixrt_loss_scaler_unscale_f64(scaler, list.ptrArray(),
                                                 list.sizeArray(), list.num,
                                                 outNull ? nullptr : &out));
  checkFlag(code, !scaler || outNull || list.invalid, out);
  checkScaler(st);
}

mixrt_status_code callback(void *user) {
  return static_cast<mixrt_status_code>(*static_cast<int32_t *>(user));
}

void fuzzLossScalerStep(FuzzInput &in, State &st) {
  mixrt_loss_scaler *scaler = takeScaler(in, st);
  const bool outNull = in.takeOneIn(16);
  TensorList<float> list;
  list.take(in);
  if (list.skip)
    return;
  int32_t result = in.takeInRange(0, 2) ? MIXRT_STATUS_OK : in.takeEnum(14);
  const bool applyNull = in.takeOneIn(16);
  const bool invalid = !scaler || outNull || list.invalid || applyNull;
  int32_t out = -7;
  const int32_t code = checked(
      mixrt_loss_scaler_step_f32(scaler, list.ptrArray(), list.sizeArray(),
                                 list.num, applyNull ? nullptr : callback,
                                 &result, outNull ? nullptr : &out),
      /*allowInternal=*/!isStatus(result) || result == MIXRT_STATUS_INTERNAL);
  if (!invalid && result != MIXRT_STATUS_OK && isStatus(result) &&
      result != MIXRT_STATUS_INTERNAL && code != MIXRT_STATUS_OK)
    FUZZ_CHECK(code == result);
  // The message of a failing callback never nests earlier ones.
  if (code != MIXRT_STATUS_OK && !invalid)
    FUZZ_CHECK(strnlen(mixrt_last_error_message(), 1024) < 1024);
  checkFlag(code, invalid, out);
  checkScaler(st);
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

/// The optimizer argument of a call: the live one, sometimes NULL.
mixrt_optimizer *takeOptimizer(FuzzInput &in, const State &st) {
  return !st.optimizer || in.takeOneIn(16) ? nullptr : st.optimizer;
}

void fuzzOptimizerCreate(FuzzInput &in, State &st) {
  mixrt_optimizer_config config;
  mixrt_optimizer_config_init(static_cast<mixrt_optimizer_kind>(in.takeEnum(2)),
                              &config);
  if (in.takeBool())
    config.kind = static_cast<mixrt_optimizer_kind>(in.takeEnum(2));
  if (in.takeBool())
    config.learning_rate = in.takeReal();
  if (in.takeBool())
    config.weight_decay = in.takeInRange(0, 1) ? 0.01 : in.takeReal();
  if (in.takeBool())
    config.momentum = in.takeInRange(0, 1) ? 0.9 : in.takeReal();
  if (in.takeBool())
    config.dampening = in.takeReal();
  if (in.takeBool())
    config.nesterov = in.takeInt32();
  if (in.takeBool())
    config.beta1 = in.takeReal();
  if (in.takeBool())
    config.beta2 = in.takeReal();
  if (in.takeBool())
    config.epsilon = in.takeReal();
  const bool configNull = in.takeOneIn(16);
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
  FUZZ_CHECK(mixrt_optimizer_num_params(o) == 0);
  mixrt_optimizer_destroy(st.optimizer);
  st.optimizer = o;
}

void fuzzOptimizerAddParam(FuzzInput &in, State &st) {
  mixrt_optimizer *opt = takeOptimizer(in, st);
  const int64_t count = in.takeSmallSize(8, 4, 8);
  const int32_t lowp = in.takeEnum(4);
  const bool valuesNull = in.takeOneIn(16), indexNull = in.takeOneIn(8);
  bool invalid = !opt || count < 0 || !fits(count, 8) ||
                 (count > 0 && valuesNull) || lowp < 0 || lowp > 3 ||
                 count == 0;
  if (!invalid && overCap(count, 8))
    return;
  const Buffer values = in.takeBuffer<double>(count, valuesNull, !invalid);
  invalid |= !invalid && !allFinite(values.as<double>(), count);
  const int64_t before = opt ? mixrt_optimizer_num_params(opt) : 0;
  int64_t index = -7;
  const int32_t code = checked(mixrt_optimizer_add_param(
      opt, values.as<double>(), count, static_cast<mixrt_lowp_format>(lowp),
      indexNull ? nullptr : &index));
  if (invalid)
    FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
  else
    FUZZ_CHECK(code == MIXRT_STATUS_OK || code == MIXRT_STATUS_OUT_OF_RANGE);
  if (code != MIXRT_STATUS_OK) {
    FUZZ_CHECK(index == -7);
    if (opt)
      FUZZ_CHECK(mixrt_optimizer_num_params(opt) == before);
    return;
  }
  FUZZ_CHECK(mixrt_optimizer_num_params(opt) == before + 1);
  if (!indexNull)
    FUZZ_CHECK(index == before);
  FUZZ_CHECK(mixrt_optimizer_param_size(opt, before) == count);
  FUZZ_CHECK(static_cast<int32_t>(mixrt_optimizer_lowp_format(opt, before)) ==
             lowp);
  FUZZ_CHECK(std::memcmp(mixrt_optimizer_master(opt, before),
                         values.as<double>(), count * 8) == 0);
}

/// The low-precision copies of every parameter follow its masters.
void checkCopies(mixrt_optimizer *opt) {
  const int64_t params = mixrt_optimizer_num_params(opt);
  for (int64_t i = 0; i < params; ++i) {
    const double *m = mixrt_optimizer_master(opt, i);
    const int64_t size = mixrt_optimizer_param_size(opt, i);
    const uint16_t *u = mixrt_optimizer_lowp_u16(opt, i);
    const int32_t lowp =
        static_cast<int32_t>(mixrt_optimizer_lowp_format(opt, i));
    FUZZ_CHECK((u != nullptr) ==
               (lowp == MIXRT_LOWP_F16 || lowp == MIXRT_LOWP_BF16));
    FUZZ_CHECK((mixrt_optimizer_lowp_int8(opt, i) != nullptr) ==
               (lowp == MIXRT_LOWP_INT8));
    const float int8Scale = mixrt_optimizer_lowp_int8_scale(opt, i);
    if (lowp == MIXRT_LOWP_INT8)
      FUZZ_CHECK(int8Scale > 0.0f && std::isfinite(int8Scale));
    else
      FUZZ_CHECK(int8Scale == 0.0f);
    for (int64_t j = 0; j < size; ++j) {
      FUZZ_CHECK(std::isfinite(m[j]));
      if (lowp == MIXRT_LOWP_F16)
        FUZZ_CHECK(u[j] == mixrt_f64_to_f16(m[j]));
      else if (lowp == MIXRT_LOWP_BF16)
        FUZZ_CHECK(u[j] == mixrt_f64_to_bf16(m[j]));
    }
  }
}

template <class T> void fuzzOptimizerStep(FuzzInput &in, State &st) {
  mixrt_optimizer *opt = takeOptimizer(in, st);
  const int64_t params = opt ? mixrt_optimizer_num_params(opt) : 0;
  std::vector<int64_t> sizes(params);
  // Snapshot of the masters.
  std::vector<std::vector<double>> masters(params);
  for (int64_t i = 0; i < params; ++i) {
    sizes[i] = mixrt_optimizer_param_size(opt, i);
    masters[i].assign(mixrt_optimizer_master(opt, i),
                      mixrt_optimizer_master(opt, i) + sizes[i]);
  }
  const int64_t num = in.takeInRange(0, 3) ? params : -1;
  TensorList<T> list;
  list.take(in, num, &sizes);
  if (list.skip)
    return;
  const bool invalid = !opt || list.invalid;
  const bool finite = invalid || list.allFinite();
  bool match = !invalid && list.num == params;
  for (int64_t i = 0; match && i < params; ++i)
    match = list.sizeArray()[i] == sizes[i];
  int32_t code;
  if constexpr (std::is_same_v<T, float>)
    code = checked(mixrt_optimizer_step_f32(
        opt, const_cast<const float *const *>(list.ptrArray()),
        list.sizeArray(), list.num));
  else
    code = checked(mixrt_optimizer_step_f64(
        opt, const_cast<const double *const *>(list.ptrArray()),
        list.sizeArray(), list.num));
  if (invalid || !match || !finite)
    FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
  else
    FUZZ_CHECK(code == MIXRT_STATUS_OK || code == MIXRT_STATUS_OUT_OF_RANGE);
  if (!opt)
    return;
  if (code != MIXRT_STATUS_OK) // All or nothing.
    for (int64_t i = 0; i < params; ++i)
      FUZZ_CHECK(std::memcmp(mixrt_optimizer_master(opt, i), masters[i].data(),
                             sizes[i] * 8) == 0);
  checkCopies(opt);
}

//===----------------------------------------------------------------------===//
// Status, SIMD level, checks of generated code
//===----------------------------------------------------------------------===//

void fuzzStatusCodeName(FuzzInput &in, State &) {
  const char *name =
      mixrt_status_code_name(static_cast<mixrt_status_code>(in.takeEnum(14)));
  FUZZ_CHECK(name != nullptr);
  const size_t n = strnlen(name, 64);
  FUZZ_CHECK(n > 0 && n < 64);
}

void fuzzSetSimdLevel(FuzzInput &in, State &) {
  const int32_t level = in.takeEnum(2);
  const int32_t code =
      checked(mixrt_set_simd_level(static_cast<mixrt_simd_level>(level)));
  if (level < 0 || level > 1)
    FUZZ_CHECK(code == MIXRT_STATUS_INVALID_ARGUMENT);
  else if (level > static_cast<int32_t>(mixrt_cpu_simd_level()))
    FUZZ_CHECK(code == MIXRT_STATUS_UNIMPLEMENTED);
  else
    FUZZ_CHECK(code == MIXRT_STATUS_OK &&
               static_cast<int32_t>(mixrt_get_simd_level()) == level);
}

/// A location or what string for mixrt_check_fail: usually short,
/// sometimes NULL or longer than the 1024 bytes the message keeps.
const char *takeCheckString(FuzzInput &in, const char *usual,
                            std::vector<char> &storage) {
  switch (in.takeInRange(0, 5)) {
  case 0:
    return nullptr;
  case 1:
    storage.assign(in.takeInRange<size_t>(1000, 5000), 'x');
    storage.back() = '\0';
    return storage.data();
  default:
    return usual;
  }
}

void fuzzCheckFail(FuzzInput &in, State &) {
  mixrt_check_reset();
  const int calls = in.takeInRange(0, 4);
  std::vector<char> location, what;
  for (int i = 0; i < calls; ++i) {
    const int32_t code =
        in.takeInRange(0, 1) ? MIXRT_STATUS_OUT_OF_RANGE : in.takeInt32();
    const char *l = takeCheckString(in, "model.mlir:1:2", location);
    const char *w = takeCheckString(in, "checked cast", what);
    mixrt_check_fail(code, l, w, static_cast<int64_t>(in.takeSize()),
                     in.takeReal());
  }
  FUZZ_CHECK(mixrt_check_failure_count() == calls);
  const int32_t code = static_cast<int32_t>(mixrt_check_status());
  FUZZ_CHECK(isStatus(code));
  FUZZ_CHECK((code == MIXRT_STATUS_OK) == (calls == 0));
  if (calls > 0) {
    // location and what are kept to 1024 bytes each (mixrt.h).
    const size_t n = strnlen(mixrt_last_error_message(), kMessageBound);
    FUZZ_CHECK(n > 0 && n < 2200);
  }
  mixrt_check_reset();
}

//===----------------------------------------------------------------------===//
// Dispatch: one row per C entry point (f32/f64 twins share a row where
// the harness picks the type itself)
//===----------------------------------------------------------------------===//

/// Row functions for entry points that take a function of the C API.
template <auto Bulk, auto Scalar, bool IsChecked>
void conversion(FuzzInput &in, State &) {
  fuzzConversion(in, Bulk, Scalar, IsChecked);
}
template <auto Fn, bool NeedScales> void gemmS8(FuzzInput &in, State &) {
  fuzzGemmS8Quantized(in, Fn, NeedScales);
}
template <auto Fn> void gemmReduced(FuzzInput &in, State &) {
  fuzzGemmReduced(in, Fn);
}

struct Target {
  const char *name;
  void (*run)(FuzzInput &, State &);
};

const Target kTargets[] = {
    {"f32_to_f16_array",
     conversion<mixrt_f32_to_f16_array, mixrt_f32_to_f16, false>},
    {"f16_to_f32_array",
     conversion<mixrt_f16_to_f32_array, mixrt_f16_to_f32, false>},
    {"f32_to_bf16_array",
     conversion<mixrt_f32_to_bf16_array, mixrt_f32_to_bf16, false>},
    {"bf16_to_f32_array",
     conversion<mixrt_bf16_to_f32_array, mixrt_bf16_to_f32, false>},
    {"f64_to_f16_array",
     conversion<mixrt_f64_to_f16_array, mixrt_f64_to_f16, false>},
    {"f64_to_bf16_array",
     conversion<mixrt_f64_to_bf16_array, mixrt_f64_to_bf16, false>},
    {"f32_to_f16_array_checked",
     conversion<mixrt_f32_to_f16_array_checked, mixrt_f32_to_f16, true>},
    {"f32_to_bf16_array_checked",
     conversion<mixrt_f32_to_bf16_array_checked, mixrt_f32_to_bf16, true>},
    {"f64_to_f16_array_checked",
     conversion<mixrt_f64_to_f16_array_checked, mixrt_f64_to_f16, true>},
    {"f64_to_bf16_array_checked",
     conversion<mixrt_f64_to_bf16_array_checked, mixrt_f64_to_bf16, true>},
    {"quantize_f32", fuzzQuantize</*WithParams=*/false>},
    {"quantize_f32_with_params", fuzzQuantize</*WithParams=*/true>},
    {"dequantize_f32", fuzzDequantize},
    {"quantize_f32_buffer", fuzzQuantizeBuffer},
    {"gemm_s8s8s32", fuzzGemmS8S8S32},
    {"gemm_s8_s32", gemmS8<mixrt_gemm_s8_s32, false>},
    {"gemm_s8_f32", gemmS8<mixrt_gemm_s8_f32, true>},
    {"gemm_s8_f64", gemmS8<mixrt_gemm_s8_f64, true>},
    {"gemm_reduced_f32", gemmReduced<mixrt_gemm_reduced_f32>},
    {"gemm_reduced_f64", gemmReduced<mixrt_gemm_reduced_f64>},
    {"gemm_reduced_u16_f32", gemmReduced<mixrt_gemm_reduced_u16_f32>},
    {"grad_norm_f32", fuzzGradNorm<float, /*Clip=*/false>},
    {"grad_norm_f64", fuzzGradNorm<double, /*Clip=*/false>},
    {"clip_grad_norm_f32", fuzzGradNorm<float, /*Clip=*/true>},
    {"clip_grad_norm_f64", fuzzGradNorm<double, /*Clip=*/true>},
    {"loss_scaler_create", fuzzLossScalerCreate},
    {"loss_scaler_scale_loss_f32/f64", fuzzLossScalerScaleLoss},
    {"loss_scaler_update", fuzzLossScalerUpdate},
    {"loss_scaler_unscale_f32", fuzzLossScalerUnscale<float>},
    {"loss_scaler_unscale_f64", fuzzLossScalerUnscale<double>},
    {"loss_scaler_step_f32", fuzzLossScalerStep},
    {"optimizer_create", fuzzOptimizerCreate},
    {"optimizer_add_param", fuzzOptimizerAddParam},
    {"optimizer_step_f32", fuzzOptimizerStep<float>},
    {"optimizer_step_f64", fuzzOptimizerStep<double>},
    {"status_code_name", fuzzStatusCodeName},
    {"set_simd_level", fuzzSetSimdLevel},
    {"check_fail/check_status", fuzzCheckFail},
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzInput in(data, size);
  State st;
  // The SIMD path for this input (both give identical results).
  (void)mixrt_set_simd_level(in.takeBool() ? MIXRT_SIMD_PORTABLE
                                           : mixrt_cpu_simd_level());
  for (int step = 0; step < 8 && !in.empty(); ++step)
    kTargets[in.takeInRange<size_t>(0, std::size(kTargets) - 1)].run(in, st);
  return 0;
}
