//===-- ukernel_conv_s8_random_test.cpp - int8 conv on random shapes ------===//
//
// mixrt_ukernel_conv2d_s8s8s32 on 300 random shapes, each on every path this
// CPU has (forced one by one with mixrt_ukernel_set_isa), exactly against a
// plain int64 reference of the contract of mixrt/ukernel.h (per output: the sum
// over (c, kh, kw) of (w - zw[f]) * (x - zx), x = zx for a padded tap; every
// sum fits in int32, which the reference checks). The deterministic test
// (ukernel_conv_s8_test.cpp) picks shapes at the kernel's block edges; this one
// draws the combinations no list names: N 1..2, C 1..300 (mostly small; the
// large ones take K = C*KH*KW across the 256-k blocks), F 1..70 (across AMX's
// 32-row blocks), H and W 0..40 (0: no input, passed as NULL), KH and KW 1..5,
// strides and dilations 1..3, paddings 0..4 on each side independently (also
// beyond the window; 1 in 10 shapes 1x1 of stride 1 without padding, whose
// planes the kernel reads in place), the output the padded input allows or
// sometimes fewer rows or columns (empty when the input is shorter than the
// window: accepted, nothing written; 7 in 10 of those are drawn again), input
// zero points in [-128, 127] (often 0), weight zero points none, one or one per
// filter, and sometimes int8's extremes everywhere (x = -128, zx = 127, w =
// 127, zw = -128: every product -65025). The input and the weight are allocated
// exactly (ASan sees a read past either); the words after the output stay
// untouched; one output row or column more than the input covers is refused and
// writes nothing. Each case has its own std::mt19937 (seed kSeed + case, read
// directly: std::uniform_int_distribution differs between standard libraries);
// a failure names the case, its seed, the whole shape and the path (also when
// ASan stops the process, with ASAN_OPTIONS=abort_on_error=1: Catch reports the
// signal with them). A case does at most kMaxWork multiply-adds (larger draws
// are drawn again), so the test stays fast under ASan + UBSan.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mixrt::test;

namespace {

constexpr uint32_t kSeed = 71000;
constexpr int kCases = 300;
/// Multiply-adds of one case at most (N * F * OH * OW * K).
constexpr int64_t kMaxWork = 4000000;
/// Failing (case, path) pairs reported before the test stops.
constexpr int kMaxFailures = 10;
constexpr size_t kGuardWords = 16;
constexpr int32_t kGuard = 0x5a5a5a5a;

/// The weight's zero points: none, one for every filter, or one per filter.
enum class WeightZp { none, one, perFilter };

const char *weightZpName(WeightZp z) {
  return z == WeightZp::none  ? "none"
         : z == WeightZp::one ? "one"
                              : "per filter";
}

/// The outputs along one dimension: the windows of extent (k - 1) * d + 1
/// at stride s in the padded input (0 when it is shorter than a window).
int64_t outputExtent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0,
                     int64_t p1) {
  const int64_t padded = in + p0 + p1, window = (k - 1) * d + 1;
  return padded < window ? 0 : (padded - window) / s + 1;
}

/// A uniform integer in [lo, hi] (the modulo bias is negligible).
int64_t uniform(std::mt19937 &rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng() % static_cast<uint32_t>(hi - lo + 1));
}

bool chance(std::mt19937 &rng, int percent) {
  return uniform(rng, 0, 99) < percent;
}

struct Case {
  int64_t n = 0, c = 0, h = 0, w = 0, f = 0, kh = 0, kw = 0, sh = 0, sw = 0,
          dh = 0, dw = 0, pt = 0, pl = 0, pb = 0, pr = 0, oh = 0, ow = 0;
  /// The output the padded input allows (oh, ow may be less).
  int64_t maxOh = 0, maxOw = 0;
  int32_t zx = 0;
  WeightZp wzp = WeightZp::none;
  bool extremes = false;
  std::vector<int8_t> in, wt;
  std::vector<int32_t> zw;

  int64_t k() const { return c * kh * kw; }
  int64_t outputs() const { return n * f * oh * ow; }
  int32_t zwOf(int64_t filter) const {
    return zw.empty() ? 0
                      : zw[zw.size() == 1 ? 0 : static_cast<size_t>(filter)];
  }
};

Case randomCase(std::mt19937 &rng) {
  Case s;
  auto side = [&] {
    const int64_t r = uniform(rng, 0, 99);
    return r < 5 ? 0 : r < 30 ? uniform(rng, 1, 8) : uniform(rng, 1, 40);
  };
  auto window = [&] { return chance(rng, 30) ? 1 : uniform(rng, 1, 5); };
  auto step = [&] { return chance(rng, 50) ? 1 : uniform(rng, 2, 3); };
  auto pad = [&] { return chance(rng, 40) ? 0 : uniform(rng, 1, 4); };
  do {
    s.n = chance(rng, 25) ? 2 : 1;
    const int64_t band = uniform(rng, 0, 99);
    s.c = band < 60   ? uniform(rng, 1, 8)
          : band < 85 ? uniform(rng, 9, 64)
                      : uniform(rng, 65, 300);
    s.f = chance(rng, 50) ? uniform(rng, 1, 20) : uniform(rng, 1, 70);
    s.h = side(), s.w = side();
    s.kh = window(), s.kw = window();
    s.sh = step(), s.sw = step(), s.dh = step(), s.dw = step();
    s.pt = pad(), s.pl = pad(), s.pb = pad(), s.pr = pad();
    if (chance(rng, 10)) {
      // 1x1, stride 1, no padding: the kernel reads such planes in place.
      s.kh = s.kw = s.sh = s.sw = 1;
      s.pt = s.pl = s.pb = s.pr = 0;
      // Often whole quads of k (what the kernel reads in place).
      if (chance(rng, 50))
        s.c = (s.c + 3) / 4 * 4;
    }
    s.maxOh = outputExtent(s.h, s.kh, s.sh, s.dh, s.pt, s.pb);
    s.maxOw = outputExtent(s.w, s.kw, s.sw, s.dw, s.pl, s.pr);
    // Fewer outputs than the input allows (the input then has rows or
    // columns no tap reads).
    s.oh =
        s.maxOh > 1 && chance(rng, 15) ? uniform(rng, 1, s.maxOh - 1) : s.maxOh;
    s.ow =
        s.maxOw > 1 && chance(rng, 15) ? uniform(rng, 1, s.maxOw - 1) : s.maxOw;
  } while (s.outputs() * s.k() > kMaxWork ||
           (s.outputs() == 0 && !chance(rng, 30)));
  s.extremes = chance(rng, 8);
  s.zx = s.extremes        ? 127
         : chance(rng, 30) ? 0
                           : static_cast<int32_t>(uniform(rng, -128, 127));
  s.wzp = static_cast<WeightZp>(uniform(rng, 0, 2));
  auto byte = [&](int extreme) {
    return static_cast<int8_t>(s.extremes ? extreme : uniform(rng, -128, 127));
  };
  // Exactly sized: no slack for a kernel to read into unnoticed.
  s.in.resize(static_cast<size_t>(s.n * s.c * s.h * s.w));
  for (int8_t &v : s.in)
    v = byte(-128);
  s.wt.resize(static_cast<size_t>(s.f * s.k()));
  for (int8_t &v : s.wt)
    v = byte(127);
  const int64_t zps = s.wzp == WeightZp::none  ? 0
                      : s.wzp == WeightZp::one ? 1
                                               : s.f;
  for (int64_t i = 0; i < zps; ++i)
    s.zw.push_back(byte(-128));
  return s;
}

std::string describe(int index, const Case &s) {
  std::ostringstream o;
  o << "case " << index << " of " << kCases << " (std::mt19937 seed "
    << kSeed + static_cast<uint32_t>(index) << "): N " << s.n << " C " << s.c
    << " H " << s.h << " W " << s.w << " F " << s.f << " window " << s.kh << "x"
    << s.kw << " (K " << s.k() << ") stride " << s.sh << "," << s.sw
    << " dilation " << s.dh << "," << s.dw << " padding top " << s.pt
    << " left " << s.pl << " bottom " << s.pb << " right " << s.pr
    << " -> output " << s.oh << "x" << s.ow << " (the input allows " << s.maxOh
    << "x" << s.maxOw << "), zx " << s.zx << ", zw " << weightZpName(s.wzp);
  if (s.zw.size() == 1)
    o << " (" << s.zw[0] << ")";
  o << (s.extremes ? ", extremes" : ", random data");
  return o.str();
}

/// The contract, in int64; `fits` turns false if a sum leaves int32.
std::vector<int32_t> reference(const Case &s, bool &fits) {
  std::vector<int32_t> out(static_cast<size_t>(s.outputs()));
  fits = true;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t f = 0; f < s.f; ++f) {
      const int64_t zw = s.zwOf(f);
      const int8_t *wf = s.wt.data() + f * s.k();
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t x = 0; x < s.ow; ++x) {
          int64_t acc = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                const int64_t iy = y * s.sh + i * s.dh - s.pt;
                const int64_t ix = x * s.sw + j * s.dw - s.pl;
                const int64_t v =
                    iy >= 0 && iy < s.h && ix >= 0 && ix < s.w
                        ? s.in[static_cast<size_t>(
                              ((n * s.c + c) * s.h + iy) * s.w + ix)]
                        : s.zx;
                acc += (wf[(c * s.kh + i) * s.kw + j] - zw) * (v - s.zx);
              }
          if (acc < INT32_MIN || acc > INT32_MAX)
            fits = false;
          out[static_cast<size_t>(((n * s.f + f) * s.oh + y) * s.ow + x)] =
              static_cast<int32_t>(acc);
        }
    }
  return out;
}

mixrt_status_code run(const Case &s, int64_t oh, int64_t ow, int32_t *out) {
  return mixrt_ukernel_conv2d_s8s8s32(
      s.n, s.c, s.h, s.w, s.in.empty() ? nullptr : s.in.data(), s.zx, s.f, s.kh,
      s.kw, s.wt.data(), s.zw.empty() ? nullptr : s.zw.data(), s.sh, s.sw, s.dh,
      s.dw, s.pt, s.pl, s.pb, s.pr, oh, ow, out,
      s.wzp == WeightZp::perFilter ? uint32_t{MIXRT_UKERNEL_A_PER_ROW} : 0u);
}

/// "out[n][f][y][x] = got (reference want)" for output i of `s`.
std::string describeOutput(const Case &s, size_t i, int32_t got, int32_t want) {
  const int64_t at = static_cast<int64_t>(i);
  std::ostringstream o;
  o << "out[n " << at / (s.f * s.oh * s.ow) << "][f "
    << at / (s.oh * s.ow) % s.f << "][y " << at / s.ow % s.oh << "][x "
    << at % s.ow << "] = " << got << " (reference " << want << ")";
  return o.str();
}

} // namespace

TEST_CASE("ukernel.conv2d_s8 equals the exact sums on random shapes",
          "[ukernel][conv][s8][random]") {
  const std::vector<mixrt_ukernel_isa> paths = availablePaths();
  int failures = 0;
  for (int index = 0; index < kCases && failures < kMaxFailures; ++index) {
    std::mt19937 rng(kSeed + static_cast<uint32_t>(index));
    const Case s = randomCase(rng);
    const std::string shape = describe(index, s);
    CAPTURE(shape);
    bool fits = true;
    const std::vector<int32_t> want = reference(s, fits);
    REQUIRE(fits);
    // One output row or column more than the input covers: refused before
    // anything is written (the buffer holds the larger output).
    if (s.oh > 0 && s.ow > 0) {
      std::vector<int32_t> big(
          static_cast<size_t>(s.n * s.f * (s.maxOh + 1) * (s.maxOw + 1)),
          kGuard);
      CHECK(run(s, s.maxOh + 1, s.ow, big.data()) ==
            MIXRT_STATUS_INVALID_ARGUMENT);
      CHECK(run(s, s.oh, s.maxOw + 1, big.data()) ==
            MIXRT_STATUS_INVALID_ARGUMENT);
      CHECK(std::count(big.begin(), big.end(), kGuard) ==
            static_cast<std::ptrdiff_t>(big.size()));
    }
    for (mixrt_ukernel_isa isa : paths) {
      IsaScope scope(isa);
      const std::string path = mixrt_ukernel_isa_name(isa);
      CAPTURE(path);
      std::vector<int32_t> got(want.size() + kGuardWords, kGuard);
      REQUIRE(run(s, s.oh, s.ow, got.data()) == MIXRT_STATUS_OK);
      size_t wrong = 0, first = 0;
      for (size_t i = 0; i < want.size(); ++i)
        if (got[i] != want[i] && wrong++ == 0)
          first = i;
      size_t guardsHit = 0;
      for (size_t i = want.size(); i < got.size(); ++i)
        guardsHit += got[i] != kGuard;
      if (wrong != 0 || guardsHit != 0) {
        ++failures;
        std::ostringstream o;
        o << wrong << " of " << want.size() << " sums wrong";
        if (wrong != 0)
          o << ", the first "
            << describeOutput(s, first, got[first], want[first]);
        o << "; " << guardsHit << " of " << kGuardWords
          << " guard words after the output written";
        FAIL_CHECK(o.str());
      }
    }
  }
  INFO("stopped after " << kMaxFailures << " failures");
  CHECK(failures < kMaxFailures);
}
