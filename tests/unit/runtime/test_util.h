//===-- test_util.h - Helpers shared by the mixrt tests ---------*- C++ -*-===//

#ifndef MIXRT_TESTS_TEST_UTIL_H
#define MIXRT_TESTS_TEST_UTIL_H

#include "mixrt/mixrt.hpp"
#include "mixrt/ukernel.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace mixrt::test {

template <class To, class From> To bits(const From &from) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

inline float f32FromBits(uint32_t b) { return bits<float>(b); }
inline uint32_t bitsOf(float f) { return bits<uint32_t>(f); }
inline double f64FromBits(uint64_t b) { return bits<double>(b); }
inline uint64_t bitsOf(double d) { return bits<uint64_t>(d); }

/// Forces the microkernels' path (MIXRT_ISA's choice) for a scope; the
/// machine must have it.
class IsaScope {
public:
  explicit IsaScope(mixrt_ukernel_isa isa) : saved_(mixrt_ukernel_get_isa()) {
    REQUIRE(mixrt_ukernel_set_isa(isa) == MIXRT_STATUS_OK);
  }
  ~IsaScope() { (void)mixrt_ukernel_set_isa(saved_); }

private:
  mixrt_ukernel_isa saved_;
};

/// Every microkernel path this CPU runs, portable first.
inline std::vector<mixrt_ukernel_isa> availablePaths() {
  std::vector<mixrt_ukernel_isa> paths;
  for (int i = 0; i <= static_cast<int>(mixrt_ukernel_cpu_isa()); ++i)
    paths.push_back(static_cast<mixrt_ukernel_isa>(i));
  return paths;
}

/// A signalling NaN no kernel writes: the fill of outputs and guard words.
constexpr uint32_t kSentinel = 0x7f812345u;

/// Compares a kernel's output `got` (want.size() values, then guard words
/// filled with kSentinel) with the reference `want`, bit for bit but for
/// NaN payloads (a NaN on both sides; the sentinel is never a written NaN),
/// reports the first 5 differences and checks the guard words untouched.
inline void checkFloatsAndGuards(const std::vector<float> &want,
                                 const std::vector<float> &got) {
  REQUIRE(got.size() >= want.size());
  int mismatches = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool same =
        bitsOf(got[i]) == bitsOf(want[i]) ||
        (got[i] != got[i] && want[i] != want[i] && bitsOf(got[i]) != kSentinel);
    if (!same && ++mismatches <= 5)
      UNSCOPED_INFO("out[" << i << "] = " << got[i] << ", reference "
                           << want[i]);
  }
  CHECK(mismatches == 0);
  for (size_t i = want.size(); i < got.size(); ++i)
    CHECK(bitsOf(got[i]) == kSentinel);
}

/// Runs `check(in, n, base, mismatch)` over all 2^32 float bit patterns in
/// blocks of at most 4096 consecutive ones (in[i] has the bits base + i),
/// split over the hardware threads. `check` returns true when it found a
/// mismatch, which it describes in `mismatch` (an M), and every thread then
/// stops. Returns the mismatch of the first thread (the lowest inputs) that
/// found one, or M{}.
template <class M, class Check> M forAllFloatBits(const Check &check) {
  constexpr uint64_t kInputs = uint64_t{1} << 32;
  constexpr size_t kBlock = 4096;
  const unsigned numThreads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<M> results(numThreads);
  std::vector<char> found(numThreads, 0);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < numThreads; ++t)
    threads.emplace_back([&, t] {
      const uint64_t begin = kInputs * t / numThreads;
      const uint64_t end = kInputs * (t + 1) / numThreads;
      std::vector<float> in(kBlock);
      for (uint64_t base = begin; base < end && !stop; base += kBlock) {
        const size_t n =
            static_cast<size_t>(std::min<uint64_t>(kBlock, end - base));
        for (size_t i = 0; i < n; ++i)
          in[i] = f32FromBits(static_cast<uint32_t>(base + i));
        if (check(static_cast<const float *>(in.data()), n,
                  static_cast<uint32_t>(base), results[t])) {
          found[t] = 1;
          stop = true;
        }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (unsigned t = 0; t < numThreads; ++t)
    if (found[t])
      return results[t];
  return M{};
}

/// Sets the process-wide SIMD level for a scope.
class SimdLevelScope {
public:
  explicit SimdLevelScope(SimdLevel level) : saved_(GetSimdLevel()) {
    ok_ = SetSimdLevel(level).ok();
  }
  ~SimdLevelScope() { (void)SetSimdLevel(saved_); }
  /// False if the CPU lacks the level.
  bool ok() const { return ok_; }

private:
  SimdLevel saved_;
  bool ok_ = false;
};

/// The levels this CPU can run.
inline std::vector<SimdLevel> availableSimdLevels() {
  std::vector<SimdLevel> levels = {SimdLevel::kPortable};
  if (CpuSimdLevel() == SimdLevel::kAvx2)
    levels.push_back(SimdLevel::kAvx2);
  return levels;
}

inline const char *simdLevelName(SimdLevel level) {
  return level == SimdLevel::kAvx2 ? "avx2" : "portable";
}

/// The shape of a convolution test (mixrt_ukernel_conv2d_f32 and
/// mixrt_ukernel_conv2d_s8s8s32): N images, C input and F output channels,
/// an OH x OW output, a KH x KW window, strides and dilations, padding.
struct ConvShape {
  int64_t n, c, f, oh, ow, kh, kw, sh, sw, dh, dw;
  /// [top, left, bottom, right]
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  /// The unpadded input: the padded extent the taps cover minus the
  /// padding (at least 0).
  int64_t h() const {
    const int64_t e = (oh - 1) * sh + (kh - 1) * dh + 1 - pt - pb;
    return e < 0 ? 0 : e;
  }
  int64_t w() const {
    const int64_t e = (ow - 1) * sw + (kw - 1) * dw + 1 - pl - pr;
    return e < 0 ? 0 : e;
  }
  int64_t k() const { return c * kh * kw; }
  int64_t outputs() const { return n * f * oh * ow; }
  ConvShape padded(int64_t t, int64_t l, int64_t b, int64_t r) const {
    ConvShape s = *this;
    s.pt = t, s.pl = l, s.pb = b, s.pr = r;
    return s;
  }
};

/// The GEMM microkernels' epilogue on a reference sum: NaN becomes the
/// canonical quiet NaN; relu keeps x > 0 (and NaN), else +0.
inline float canonical(float x) {
  return x != x ? f32FromBits(0x7fc00000u) : x;
}

inline float reluCanon(float x, bool relu) {
  if (x != x)
    return canonical(x);
  return relu && !(x > 0.0f) ? 0.0f : x;
}

/// Compares C (with leading dimension ldc) bit for bit, and checks that the
/// padding between rows still holds the sentinel.
template <class T>
inline void requireSame(const std::vector<T> &got, const std::vector<T> &want,
                        int64_t m, int64_t n, int64_t ldc,
                        const std::string &what) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const size_t idx = static_cast<size_t>(i * ldc + j);
      if (idx >= got.size())
        break;
      uint32_t g, w;
      std::memcpy(&g, &got[idx], 4);
      if (j < n)
        std::memcpy(&w, &want[idx], 4);
      else
        w = kSentinel;
      if (g != w) {
        INFO(what << " C[" << i << "][" << j << "]: got 0x" << std::hex << g
                  << ", want 0x" << w);
        REQUIRE(g == w);
      }
    }
}

/// Runs `gemm(out)` with mixrt's pool at `threads` on an output of `count`
/// elements filled with `fill`, requires it to succeed, restores one thread
/// and returns the output.
template <typename T, typename Gemm>
std::vector<T> runOnThreads(int32_t threads, size_t count, T fill,
                            Gemm &&gemm) {
  std::vector<T> out(count, fill);
  REQUIRE(mixrt_set_num_threads(threads) == MIXRT_STATUS_OK);
  const mixrt_status_code status = gemm(out.data());
  REQUIRE(mixrt_set_num_threads(1) == MIXRT_STATUS_OK);
  REQUIRE(status == MIXRT_STATUS_OK);
  return out;
}

} // namespace mixrt::test

#endif // MIXRT_TESTS_TEST_UTIL_H
