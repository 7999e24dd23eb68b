//===-- ukernel_conv_s8_test.cpp - the int8 convolution as GEMMs ----------===//
//
// mixrt_ukernel_conv2d_s8s8s32 on every path this CPU has (forced one by one
// with mixrt_ukernel_set_isa), exactly against a plain int64 reference of
// the contract of mixrt/ukernel.h (per output: the sum over (c, kh, kw) of
// (w - zw[f]) * (x - zx), x = zx for a padded tap). The shapes cross the
// kernel's blocks: K = C*KH*KW below, at and above the 256-k block (the
// sums of later blocks added to the output: 1, 3, 255, 256, 257, 576, 1152),
// output planes below, at and across the 128-position block (up to 512
// positions when K is small: 9, 27, 72) and the
// 16-column panels, F of 1, 3, 17, 31, 32, 33, 47 and 64 (AMX's 32-row
// blocks, whose last one moves back over rows it must not add twice), two
// images; 1x1 stride 1 without padding, strides 2 and 3, dilation 2, 5x3
// windows, asymmetric and large padding; zero points 0, -128, 5 and 127 for
// the input (the padded taps) and none, one or one per filter for the
// weight; the extreme values -128 and 127 everywhere. The words after the
// output stay untouched. Then threads (1, 2, 3: the same sums) and the
// argument checks.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

using namespace mixrt::test;

namespace {

/// The weight's zero points: none, one for every filter, or one per filter.
enum class WeightZp { none, one, perFilter };

struct ConvData {
  std::vector<int8_t> in, w;
  std::vector<int32_t> zw;
  int32_t zx = 0;
  ConvData(const ConvShape &s, int32_t inputZp, WeightZp wzp, bool extremes,
           std::mt19937 &rng) {
    std::uniform_int_distribution<int> byte(-128, 127);
    in.resize(static_cast<size_t>(s.n * s.c * s.h() * s.w()));
    w.resize(static_cast<size_t>(s.f * s.k()));
    for (int8_t &v : in)
      v = static_cast<int8_t>(extremes ? -128 : byte(rng));
    for (int8_t &v : w)
      v = static_cast<int8_t>(extremes ? 127 : byte(rng));
    zx = inputZp;
    if (wzp == WeightZp::one)
      zw = {extremes ? -128 : 3};
    else if (wzp == WeightZp::perFilter)
      for (int64_t f = 0; f < s.f; ++f)
        zw.push_back(extremes ? -128 : byte(rng));
  }
  const int32_t *zwData() const { return zw.empty() ? nullptr : zw.data(); }
  uint32_t flags() const {
    return zw.size() > 1 ? uint32_t{MIXRT_UKERNEL_A_PER_ROW} : 0u;
  }
  int32_t zwOf(int64_t f) const {
    return zw.empty() ? 0 : zw[zw.size() == 1 ? 0 : static_cast<size_t>(f)];
  }
};

/// The contract, in int64 (every tested sum fits in int32).
std::vector<int32_t> reference(const ConvShape &s, const ConvData &d) {
  const int64_t h = s.h(), wd = s.w();
  std::vector<int32_t> out(static_cast<size_t>(s.outputs()));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t f = 0; f < s.f; ++f)
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t x = 0; x < s.ow; ++x) {
          int64_t acc = 0;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                const int64_t iy = y * s.sh + i * s.dh - s.pt;
                const int64_t ix = x * s.sw + j * s.dw - s.pl;
                const int64_t v = iy >= 0 && iy < h && ix >= 0 && ix < wd
                                      ? d.in[static_cast<size_t>(
                                            ((n * s.c + c) * h + iy) * wd + ix)]
                                      : d.zx;
                const int64_t wv = d.w[static_cast<size_t>(
                    ((f * s.c + c) * s.kh + i) * s.kw + j)];
                acc += (wv - d.zwOf(f)) * (v - d.zx);
              }
          REQUIRE(acc >= INT32_MIN);
          REQUIRE(acc <= INT32_MAX);
          out[static_cast<size_t>(((n * s.f + f) * s.oh + y) * s.ow + x)] =
              static_cast<int32_t>(acc);
        }
  return out;
}

mixrt_status_code run(const ConvShape &s, const ConvData &d, int32_t *out) {
  return mixrt_ukernel_conv2d_s8s8s32(
      s.n, s.c, s.h(), s.w(), d.in.empty() ? nullptr : d.in.data(), d.zx, s.f,
      s.kh, s.kw, d.w.empty() ? nullptr : d.w.data(), d.zwData(), s.sh, s.sw,
      s.dh, s.dw, s.pt, s.pl, s.pb, s.pr, s.oh, s.ow, out, d.flags());
}

constexpr int32_t kGuard = 0x5a5a5a5a;

void checkShape(const ConvShape &s, int32_t inputZp, WeightZp wzp,
                std::mt19937 &rng, bool extremes = false) {
  INFO("N " << s.n << " C " << s.c << " F " << s.f << " out " << s.oh << "x"
            << s.ow << " window " << s.kh << "x" << s.kw << " stride " << s.sh
            << "," << s.sw << " dilation " << s.dh << "," << s.dw << " padding "
            << s.pt << "," << s.pl << "," << s.pb << "," << s.pr << " zx "
            << inputZp << " zw " << static_cast<int>(wzp)
            << (extremes ? " extremes" : ""));
  ConvData d(s, inputZp, wzp, extremes, rng);
  const std::vector<int32_t> want = reference(s, d);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    std::vector<int32_t> got(want.size() + 3, kGuard);
    REQUIRE(run(s, d, got.data()) == MIXRT_STATUS_OK);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i] && wrong++ == 0)
        first = i;
    INFO(wrong << " wrong sums, the first at " << first << ": "
               << (wrong ? got[first] : 0) << " for "
               << (wrong ? want[first] : 0));
    CHECK(wrong == 0);
    for (size_t i = want.size(); i < got.size(); ++i)
      CHECK(got[i] == kGuard);
  }
}

} // namespace

TEST_CASE("ukernel.conv2d_s8 equals the exact sums on every path",
          "[ukernel][conv][s8]") {
  std::mt19937 rng(53);
  // 1x1 stride 1 without padding: K across the 256-k blocks, planes across
  // the 128-position block and the panels, two images.
  for (int64_t c : {1, 3, 255, 256, 257})
    for (int64_t side : {1, 7, 8, 9, 12, 16})
      checkShape(ConvShape{c == 1 || c == 257 ? 2 : 1, c, 17, side, side, 1, 1,
                           1, 1, 1, 1},
                 0, WeightZp::none, rng);
  // The same planes read in place by the interleave (blocks of whole
  // panels, k blocks of whole quads) next to staged ones: 20x20 = 3 blocks
  // of 128 and one of 16 positions, 2x9 = 18 (staged: not whole panels); K
  // = 8, 260 = 256 + 4, 258 = 256 + 2 (the last k block staged); zero
  // points; a dilation (nothing to a 1x1 window); two images.
  for (int64_t c : {8, 258, 260})
    for (int64_t d : {1, 3})
      for (ConvShape s : {ConvShape{2, c, 33, 20, 20, 1, 1, 1, 1, d, d},
                          ConvShape{2, c, 5, 2, 9, 1, 1, 1, 1, d, d}})
        checkShape(s, c == 8 ? -128 : 7,
                   c == 258 ? WeightZp::one : WeightZp::perFilter, rng);
  // 3x3 (K = 576 and 1152), F around AMX's 32-row blocks.
  for (int64_t f : {1, 3, 17, 31, 32, 33, 47, 64})
    checkShape(ConvShape{1, 64, f, 9, 9, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
               0, WeightZp::perFilter, rng);
  checkShape(ConvShape{1, 128, 20, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             -128, WeightZp::one, rng);
  // A small K takes blocks of more positions (K = 27: 512; K = 9: 512;
  // K = 72: 448): planes across them, stride 2 as a first layer has it.
  checkShape(ConvShape{1, 3, 17, 40, 40, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             0, WeightZp::none, rng);
  checkShape(ConvShape{1, 3, 32, 56, 56, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
             -3, WeightZp::perFilter, rng);
  checkShape(ConvShape{2, 1, 5, 30, 31, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 9,
             WeightZp::one, rng);
  checkShape(ConvShape{1, 8, 33, 30, 31, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             0, WeightZp::perFilter, rng);
  // A 56-wide plane: rows cross panels and blocks at every offset.
  checkShape(ConvShape{1, 8, 16, 6, 56, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 5,
             WeightZp::perFilter, rng);
  for (ConvShape s : {
           ConvShape{2, 5, 9, 4, 11, 1, 1, 2, 2, 1, 1},
           ConvShape{1, 3, 5, 5, 17, 5, 3, 2, 1, 1, 2}.padded(2, 1, 0, 1),
           ConvShape{2, 4, 6, 7, 9, 3, 3, 3, 3, 2, 2}.padded(1, 2, 3, 0),
           ConvShape{1, 6, 7, 8, 33, 2, 4, 1, 2, 1, 1}.padded(0, 3, 1, 2),
           // Rows of 3 columns under 2 of padding each side: segments that
           // start in the left padding and end in the right one.
           ConvShape{1, 4, 5, 3, 5, 3, 3, 1, 1, 1, 1}.padded(1, 2, 1, 2),
           // Padding beyond the window: every output is a border one.
           ConvShape{1, 2, 3, 4, 5, 3, 3, 1, 1, 1, 1}.padded(3, 3, 3, 3),
           // Taps wholly in the left padding of channel 0, row 0 (the
           // staging once read 16 bytes before the input there; ASan).
           ConvShape{1, 8, 1, 1, 1, 1, 3, 1, 1, 1, 2}.padded(0, 3, 0, 0),
       })
    for (int32_t zx : {0, 127})
      checkShape(s, zx, zx ? WeightZp::perFilter : WeightZp::none, rng);
}

// The largest magnitudes: x = -128 with zx = 127 (x - zx = -255), w = 127
// with zw = -128 (255): every product -65025, K = 288 keeps the sum in
// int32 (-18.7 million) across two k blocks.
TEST_CASE("ukernel.conv2d_s8 is exact at the extremes of int8",
          "[ukernel][conv][s8]") {
  std::mt19937 rng(59);
  for (WeightZp wzp : {WeightZp::one, WeightZp::perFilter})
    checkShape(
        ConvShape{1, 32, 33, 10, 13, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 127,
        wzp, rng, /*extremes=*/true);
}

TEST_CASE("ukernel.conv2d_s8 of an empty sum is 0", "[ukernel][conv][s8]") {
  std::mt19937 rng(61);
  checkShape(ConvShape{1, 0, 3, 2, 3, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 0,
             WeightZp::none, rng);
  // Every tap padding: the zero point, which adds 0; an input of no
  // columns (W = 0: no input at all, NULL).
  checkShape(ConvShape{1, 2, 3, 2, 2, 3, 3, 1, 1, 1, 1}.padded(3, 1, 3, 1), -7,
             WeightZp::perFilter, rng);
  checkShape(ConvShape{1, 3, 2, 2, 1, 1, 2, 1, 1, 1, 19}.padded(0, 20, 0, 0), 4,
             WeightZp::one, rng);
}

TEST_CASE("ukernel.conv2d_s8 gives the same sums for any number of threads",
          "[ukernel][conv][s8]") {
  std::mt19937 rng(67);
  for (ConvShape s : {
           ConvShape{2, 64, 32, 28, 28, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           ConvShape{1, 256, 64, 14, 14, 1, 1, 1, 1, 1, 1},
       }) {
    ConvData d(s, 3, WeightZp::perFilter, false, rng);
    const std::vector<int32_t> want = reference(s, d);
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      INFO("path " << mixrt_ukernel_isa_name(isa));
      for (int32_t threads : {1, 2, 3}) {
        INFO(threads << " threads");
        REQUIRE(mixrt_set_num_threads(threads) == MIXRT_STATUS_OK);
        std::vector<int32_t> got(want.size(), -7);
        REQUIRE(run(s, d, got.data()) == MIXRT_STATUS_OK);
        CHECK(std::memcmp(got.data(), want.data(), want.size() * 4) == 0);
      }
    }
  }
  REQUIRE(mixrt_set_num_threads(1) == MIXRT_STATUS_OK);
}

TEST_CASE("ukernel.conv2d_s8 checks its arguments", "[ukernel][conv][s8]") {
  // 1 image, 2 channels of 5 x 6, 3 filters of 3x3: output 3 x 4.
  std::vector<int8_t> in(60, 1), w(54, 2);
  std::vector<int32_t> out(36, 0), zw = {0, 1, -128}, bad_zw = {0, 128, 0};
  auto call = [&](int64_t n, int64_t c, int64_t h, int64_t wd, const int8_t *x,
                  int32_t zx, int64_t f, int64_t kh, const int8_t *wt,
                  const int32_t *z, int64_t sh, int64_t dh, int64_t pad,
                  int64_t oh, int64_t ow, int32_t *y, uint32_t flags) {
    return mixrt_ukernel_conv2d_s8s8s32(n, c, h, wd, x, zx, f, kh, kh, wt, z,
                                        sh, sh, dh, dh, pad, pad, pad, pad, oh,
                                        ow, y, flags);
  };
  const int8_t *x = in.data(), *wt = w.data();
  int32_t *y = out.data();
  const uint32_t perRow = MIXRT_UKERNEL_A_PER_ROW;
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, nullptr, 1, 1, 0, 3, 4, y, 0) ==
        MIXRT_STATUS_OK);
  CHECK(out[0] == 36); // 2 channels x 9 taps of 1 x 2
  CHECK(out[35] == 36);
  // Per filter: filter 2 computes (2 + 128) * (1 - 1) = 0 with zx = 1, and
  // (2 - 1) * 1 = 1 per tap for filter 1 with zx = 0.
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, zw.data(), 1, 1, 0, 3, 4, y, perRow) ==
        MIXRT_STATUS_OK);
  CHECK(out[0] == 36);
  CHECK(out[12] == 18);
  CHECK(out[24] == 2 * 9 * 130);
  const mixrt_status_code bad = MIXRT_STATUS_INVALID_ARGUMENT;
  CHECK(call(-1, 2, 5, 6, x, 0, 3, 3, wt, nullptr, 1, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 0, -3, 3, wt, nullptr, 1, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, 0, wt, nullptr, 1, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, nullptr, 0, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, nullptr, 1, 0, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, nullptr, 1, 1, -1, 3, 4, y, 0) == bad);
  // The taps of output row 3 would read input row 5 (of 0..4).
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, nullptr, 1, 1, 0, 4, 4, y, 0) == bad);
  // Zero points outside int8, flags other than per-row.
  CHECK(call(1, 2, 5, 6, x, 128, 3, 3, wt, nullptr, 1, 1, 0, 3, 4, y, 0) ==
        bad);
  CHECK(call(1, 2, 5, 6, x, -129, 3, 3, wt, nullptr, 1, 1, 0, 3, 4, y, 0) ==
        bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, bad_zw.data(), 1, 1, 0, 3, 4, y,
             perRow) == bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, nullptr, 1, 1, 0, 3, 4, y,
             MIXRT_UKERNEL_RELU) == bad);
  CHECK(call(1, 2, 5, 6, nullptr, 0, 3, 3, wt, nullptr, 1, 1, 0, 3, 4, y, 0) ==
        bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, nullptr, nullptr, 1, 1, 0, 3, 4, y, 0) ==
        bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, 3, wt, nullptr, 1, 1, 0, 3, 4, nullptr, 0) ==
        bad);
  CHECK(call(1, int64_t{1} << 61, 5, 6, x, 0, 3, 3, wt, nullptr, 1, 1, 0, 3, 4,
             y, 0) == bad);
  // An empty output touches nothing (NULL pointers allowed).
  CHECK(call(0, 2, 5, 6, nullptr, 0, 3, 3, nullptr, nullptr, 1, 1, 0, 3, 4,
             nullptr, 0) == MIXRT_STATUS_OK);
}
