//===-- ukernel_conv_grouped_test.cpp - grouped f32 convolutions ----------===//
//
// mixrt_ukernel_conv2d_grouped_f32 on every path this CPU has (forced one by
// one with mixrt_ukernel_set_isa), bit for bit against a plain reference of
// the contract of mixrt/ukernel.h (per output: fmaf over the group's (c, kh,
// kw) ascending from +0, a padded tap an fma of +0, then + bias[f], then
// relu); a NaN output must be a NaN in both. The shapes cover the direct
// path of stride 1 (filters per group not a multiple of the tiles' 8, 6
// or 4, bands of 49 to 64 positions (AVX-512's one-tile case),
// one input channel per group, 1x1 windows (one channel per group, or
// padded: positions run on across rows), planes narrower than a vector (7x7, 1
// x 5, 9 x 1), rows wider than three vectors, planes split into bands of rows,
// dilation, asymmetric and large padding, 5x3 windows, K = 576); strides 2 to 8
// on the same path (phase planes: one or two strided directions, 3 of 4 phases
// used, dilation with stride, 1x1 of stride 2, bands, the one-tile band), and
// the GEMM path it leaves to (stride 9, the padded rows of one output row
// beyond the band, 1x1 of stride 1 unpadded with several channels per
// group); infinities,
// NaN, -0 and subnormals; relu; no bias; an empty sum; two images; the words
// after the output stay untouched. Then the results of one
// mixrt_ukernel_conv2d_f32 call per image and group, threads (1, 2, 3: the same
// bits) and the argument checks.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace mixrt::test;

namespace {

/// A grouped layer: `s.c` and `s.f` are all the groups' channels.
struct Grouped {
  ConvShape s;
  int64_t groups;
  int64_t cg() const { return s.c / groups; }
  int64_t fg() const { return s.f / groups; }
  int64_t weights() const { return s.f * cg() * s.kh * s.kw; }
};

/// The contract, as plainly as possible.
std::vector<float> reference(const Grouped &g, const std::vector<float> &in,
                             const std::vector<float> &w, const float *bias,
                             bool relu) {
  const ConvShape &s = g.s;
  const int64_t h = s.h(), wd = s.w(), cg = g.cg(), fg = g.fg();
  std::vector<float> out(static_cast<size_t>(s.outputs()));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t f = 0; f < s.f; ++f)
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t x = 0; x < s.ow; ++x) {
          float acc = 0.0f;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                const int64_t iy = y * s.sh + i * s.dh - s.pt;
                const int64_t ix = x * s.sw + j * s.dw - s.pl;
                const int64_t ic = f / fg * cg + c;
                const float v = iy >= 0 && iy < h && ix >= 0 && ix < wd
                                    ? in[((n * s.c + ic) * h + iy) * wd + ix]
                                    : 0.0f;
                acc = std::fma(w[((f * cg + c) * s.kh + i) * s.kw + j], v, acc);
              }
          if (bias)
            acc = acc + bias[f];
          if (relu && !std::isnan(acc))
            acc = acc > 0.0f ? acc : 0.0f;
          out[((n * s.f + f) * s.oh + y) * s.ow + x] = acc;
        }
  return out;
}

mixrt_status_code run(const Grouped &g, const std::vector<float> &in,
                      const std::vector<float> &w, float *out,
                      const float *bias, uint32_t flags = 0) {
  const ConvShape &s = g.s;
  return mixrt_ukernel_conv2d_grouped_f32(
      s.n, s.c, s.h(), s.w(), in.empty() ? nullptr : in.data(), s.f, g.groups,
      s.kh, s.kw, w.empty() ? nullptr : w.data(), s.sh, s.sw, s.dh, s.dw, s.pt,
      s.pl, s.pb, s.pr, s.oh, s.ow, out, bias, flags);
}

/// Random data; `specials`: infinities, NaN, -0 and subnormals, and an
/// infinite weight (0 x inf = NaN wherever its tap is padding).
struct Data {
  std::vector<float> in, w, bias;
  Data(const Grouped &g, bool specials, std::mt19937 &rng) {
    const ConvShape &s = g.s;
    std::normal_distribution<float> normal(0.0f, 1.0f);
    in.resize(static_cast<size_t>(s.n * s.c * s.h() * s.w()));
    w.resize(static_cast<size_t>(g.weights()));
    bias.resize(static_cast<size_t>(s.f));
    for (float &v : in)
      v = normal(rng);
    for (float &v : w)
      v = normal(rng);
    for (float &v : bias)
      v = normal(rng);
    if (!specials || in.empty() || w.empty())
      return;
    w[0] = INFINITY;
    if (w.size() > 2)
      w[2] = -0.0f;
    w[w.size() - 1] = 1e-41f;
    in[in.size() / 2] = -INFINITY;
    in[in.size() / 3] = NAN;
    in[in.size() / 5] = 1e-40f;
    in[in.size() - 1] = -0.0f;
    bias[0] = -0.0f;
  }
};

void check(const Grouped &g, bool specials, bool withBias, std::mt19937 &rng,
           bool relu = false) {
  const ConvShape &s = g.s;
  INFO("N " << s.n << " C " << s.c << " F " << s.f << " groups " << g.groups
            << " out " << s.oh << "x" << s.ow << " window " << s.kh << "x"
            << s.kw << " stride " << s.sh << "," << s.sw << " dilation " << s.dh
            << "," << s.dw << " padding " << s.pt << "," << s.pl << "," << s.pb
            << "," << s.pr << (specials ? " specials" : "")
            << (withBias ? " bias" : "") << (relu ? " relu" : ""));
  Data d(g, specials, rng);
  const float *bias = withBias ? d.bias.data() : nullptr;
  const std::vector<float> want = reference(g, d.in, d.w, bias, relu);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    std::vector<float> got(want.size() + 3, f32FromBits(kSentinel));
    REQUIRE(run(g, d.in, d.w, got.data(), bias,
                relu ? uint32_t{MIXRT_UKERNEL_RELU} : 0u) == MIXRT_STATUS_OK);
    checkFloatsAndGuards(want, got);
  }
}

Grouped grouped(int64_t n, int64_t c, int64_t f, int64_t groups, int64_t oh,
                int64_t ow, int64_t k, int64_t pad) {
  return Grouped{
      ConvShape{n, c, f, oh, ow, k, k, 1, 1, 1, 1}.padded(pad, pad, pad, pad),
      groups};
}

} // namespace

TEST_CASE("ukernel.conv2d_grouped equals the reference on every path",
          "[ukernel][conv][grouped]") {
  std::mt19937 rng(43);
  // ResNeXt-like 3x3 layers: 8 filters per group (one AVX-512 tile, two
  // AVX2 ones), 16 and 32 (several tiles), two images.
  check(grouped(2, 64, 64, 8, 28, 28, 3, 1), false, true, rng);
  check(grouped(1, 64, 64, 4, 14, 14, 3, 1), false, true, rng);
  check(grouped(1, 128, 128, 4, 7, 7, 3, 1), false, true, rng);
  // Filters per group not a multiple of the tiles (every remainder), one
  // input channel per group (a channel multiplier), different C and F.
  for (int64_t fg : {1, 3, 5, 6, 7, 9, 11, 17})
    check(grouped(1, 6, 3 * fg, 3, 9, 13, 3, 1), false, true, rng);
  check(grouped(2, 12, 24, 12, 10, 10, 3, 1), false, true, rng);
  // 49 to 64 padded positions (7x7 and 6x8 planes of 3x3 windows: 63, 60):
  // AVX-512 takes them as one tile of 4 vectors, at most 6 filters a tile
  // (balanced: 13 filters as 5 + 4 + 4).
  for (int64_t fg : {1, 2, 5, 7, 13})
    check(grouped(1, 4, 2 * fg, 2, 7, 7, 3, 1), false, true, rng);
  check(grouped(2, 6, 12, 3, 6, 8, 3, 1), false, true, rng);
  // 1x1 (positions run on across rows: one segment per vector), planes
  // narrower than a vector, one column, one row, rows of 50 (three vectors
  // and a tail).
  check(grouped(2, 32, 48, 4, 9, 9, 1, 0), false, true, rng);
  // 1x1 with one channel per group (direct; with more, stride 1 and no
  // padding, per group the GEMMs), and padded (direct).
  check(grouped(2, 8, 16, 8, 9, 9, 1, 0), false, true, rng);
  check(grouped(1, 16, 16, 4, 5, 6, 1, 1), false, true, rng);
  check(grouped(1, 16, 16, 2, 1, 5, 3, 1), false, true, rng);
  check(grouped(1, 16, 16, 2, 9, 1, 3, 1), false, true, rng);
  check(grouped(1, 8, 8, 2, 3, 50, 3, 1), false, true, rng);
  // A plane split into bands (16 channels of 58-float padded rows: about
  // 11 rows a band), and 100-wide rows of 24 channels (3 rows a band).
  check(grouped(1, 32, 32, 2, 56, 56, 3, 1), false, true, rng);
  check(grouped(1, 48, 16, 2, 9, 100, 3, 1), false, true, rng);
  for (Grouped g : {
           // Dilation 2, asymmetric padding, 5x3 and 2x4 windows.
           Grouped{
               ConvShape{1, 8, 12, 9, 17, 5, 3, 1, 1, 2, 1}.padded(2, 1, 3, 1),
               4},
           Grouped{
               ConvShape{2, 6, 9, 7, 20, 2, 4, 1, 1, 2, 2}.padded(0, 3, 1, 2),
               3},
           // Padding beyond the window: every output a border one.
           Grouped{
               ConvShape{1, 4, 6, 4, 5, 3, 3, 1, 1, 1, 1}.padded(3, 3, 3, 3),
               2},
           // K = (C / groups) * 9 = 576 (direct: 64 channels of three
           // 8-float rows); the GEMM path: a band of 400 channels of 3 rows
           // of 12 floats (3x3) or of one row of 40 (1x1) beyond its 48 KiB.
           grouped(1, 128, 8, 2, 6, 6, 3, 1),
           grouped(1, 800, 4, 2, 3, 10, 3, 1),
           grouped(1, 800, 4, 2, 3, 40, 1, 0),
       })
    check(g, false, true, rng);
}

TEST_CASE("ukernel.conv2d_grouped with strides equals the reference on "
          "every path",
          "[ukernel][conv][grouped]") {
  std::mt19937 rng(61);
  auto strided = [](int64_t n, int64_t c, int64_t f, int64_t groups, int64_t oh,
                    int64_t ow, int64_t k, int64_t sh, int64_t sw, int64_t d,
                    int64_t pad) {
    return Grouped{ConvShape{n, c, f, oh, ow, k, k, sh, sw, d, d}.padded(
                       pad, pad, pad, pad),
                   groups};
  };
  // ResNeXt's stride-2 3x3 layers (the first block of a stage): four
  // phase planes of 15 (14 + 1) floats a row, two images; 7x7 outputs (8-
  // float rows: AVX-512's one-tile band of 56 positions).
  check(strided(2, 64, 64, 8, 14, 14, 3, 2, 2, 1, 1), false, true, rng);
  check(strided(1, 64, 64, 4, 7, 7, 3, 2, 2, 1, 1), false, true, rng);
  // Every tile remainder of the filters per group.
  for (int64_t fg : {1, 3, 5, 7, 9, 13})
    check(strided(1, 6, 3 * fg, 3, 7, 9, 3, 2, 2, 1, 1), false, true, rng);
  // Bands: 16 channels x 4 planes of 29-float rows, 5 output rows a band.
  check(strided(1, 32, 32, 2, 28, 28, 3, 2, 2, 1, 1), false, true, rng);
  for (Grouped g : {
           // One strided direction (two phase planes): rows, then columns.
           strided(1, 8, 8, 2, 6, 11, 3, 2, 1, 1, 1),
           strided(1, 8, 8, 2, 11, 6, 3, 1, 2, 1, 1),
           // Strides 3 and 4 (the gather copy), 5x5 windows; 3x3 windows
           // of stride 4 use 3 of its 4 phases, stride 8 (the largest of
           // the direct path) one each.
           strided(1, 6, 6, 3, 5, 7, 5, 3, 3, 1, 2),
           strided(2, 4, 8, 2, 4, 6, 3, 4, 4, 1, 1),
           strided(1, 4, 4, 2, 3, 20, 3, 8, 8, 1, 1),
           // Stride 9: per group the GEMMs.
           strided(1, 4, 4, 2, 3, 4, 3, 9, 9, 1, 1),
           // Dilation 2 of stride 2 (one phase plane: every tap even) and
           // dilation 3 (taps 0, 3, 6: phases 0, 1, 0).
           strided(1, 8, 8, 2, 5, 6, 3, 2, 2, 2, 2),
           strided(1, 8, 8, 2, 5, 6, 3, 2, 2, 3, 3),
           // 1x1 of stride 2 (every other column of every other row).
           strided(2, 16, 32, 4, 7, 7, 1, 2, 2, 1, 0),
           // Padding beyond the window, asymmetric padding, a 2x4 window.
           strided(1, 4, 6, 2, 4, 5, 3, 2, 2, 1, 4),
           Grouped{
               ConvShape{1, 6, 9, 7, 10, 2, 4, 2, 3, 1, 1}.padded(0, 3, 1, 2),
               3},
           // A band of 400 channels x 4 planes of 11 floats beyond its
           // 48 KiB: the GEMM path.
           strided(1, 800, 4, 2, 3, 10, 3, 2, 2, 1, 1),
       })
    check(g, false, true, rng);
  // Specials, relu, no bias.
  for (bool withBias : {false, true})
    for (bool relu : {false, true})
      check(strided(1, 8, 8, 2, 5, 6, 3, 2, 2, 1, 1), true, withBias, rng,
            relu);
}

TEST_CASE("ukernel.conv2d_grouped propagates specials, fuses relu, and sums "
          "nothing to +0",
          "[ukernel][conv][grouped]") {
  std::mt19937 rng(47);
  for (bool withBias : {false, true})
    for (bool relu : {false, true}) {
      check(grouped(1, 8, 8, 2, 6, 9, 3, 1), true, withBias, rng, relu);
      check(grouped(2, 60, 6, 3, 5, 5, 3, 1), true, withBias, rng, relu);
      check(grouped(1, 12, 12, 3, 11, 23, 1, 0), true, withBias, rng, relu);
      // C = 0: every output is +0 (then the bias, the relu).
      check(grouped(1, 0, 6, 2, 3, 4, 3, 1), false, withBias, rng, relu);
    }
  // An input of no rows: every tap is padding.
  check(
      Grouped{ConvShape{1, 4, 4, 2, 2, 3, 3, 1, 1, 1, 1}.padded(3, 1, 3, 1), 2},
      true, true, rng);
}

TEST_CASE("ukernel.conv2d_grouped gives the bits of one conv2d call per "
          "image and group",
          "[ukernel][conv][grouped]") {
  std::mt19937 rng(53);
  for (Grouped g :
       {grouped(2, 64, 32, 4, 13, 21, 3, 1),
        Grouped{ConvShape{1, 16, 16, 7, 9, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
                2}}) {
    Data d(g, true, rng);
    const ConvShape &s = g.s;
    const int64_t inPlane = s.h() * s.w(), outPlane = s.oh * s.ow;
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      INFO("path " << mixrt_ukernel_isa_name(isa));
      std::vector<float> want(static_cast<size_t>(s.outputs()));
      for (int64_t n = 0; n < s.n; ++n)
        for (int64_t q = 0; q < g.groups; ++q)
          REQUIRE(mixrt_ukernel_conv2d_f32(
                      1, g.cg(), s.h(), s.w(),
                      d.in.data() + (n * s.c + q * g.cg()) * inPlane, g.fg(),
                      s.kh, s.kw, d.w.data() + q * g.weights() / g.groups, s.sh,
                      s.sw, s.dh, s.dw, s.pt, s.pl, s.pb, s.pr, s.oh, s.ow,
                      want.data() + (n * s.f + q * g.fg()) * outPlane,
                      d.bias.data() + q * g.fg(),
                      MIXRT_UKERNEL_RELU) == MIXRT_STATUS_OK);
      std::vector<float> got(want.size(), -7.0f);
      REQUIRE(run(g, d.in, d.w, got.data(), d.bias.data(),
                  MIXRT_UKERNEL_RELU) == MIXRT_STATUS_OK);
      checkFloatsAndGuards(want, got);
    }
  }
}

TEST_CASE("ukernel.conv2d_grouped gives the same bits for any number of "
          "threads",
          "[ukernel][conv][grouped]") {
  std::mt19937 rng(59);
  // 2 x 256 x 784 x 72 and 1 x 64 x 3136 x 144 multiply-adds: split by
  // (image, group, band) items; the GEMM path by its blocks.
  for (Grouped g :
       {grouped(2, 256, 256, 32, 28, 28, 3, 1),
        grouped(1, 64, 64, 4, 56, 56, 3, 1),
        Grouped{
            ConvShape{1, 64, 64, 28, 28, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
            2}}) {
    Data d(g, false, rng);
    const std::vector<float> want =
        reference(g, d.in, d.w, d.bias.data(), false);
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      INFO("path " << mixrt_ukernel_isa_name(isa));
      for (int32_t threads : {1, 2, 3}) {
        INFO(threads << " threads");
        const std::vector<float> got =
            runOnThreads(threads, want.size(), -7.0f, [&](float *out) {
              return run(g, d.in, d.w, out, d.bias.data());
            });
        CHECK(std::memcmp(got.data(), want.data(), want.size() * 4) == 0);
      }
    }
  }
}

TEST_CASE("ukernel.conv2d_grouped checks its arguments",
          "[ukernel][conv][grouped]") {
  // 1 image, 4 channels of 5 x 6 in 2 groups, 6 filters of 2 x 3 x 3:
  // output 3 x 4.
  std::vector<float> in(120, 1.0f), w(108, 1.0f), out(72, 0.0f);
  auto call = [&](int64_t c, const float *x, int64_t f, int64_t groups,
                  const float *wt, int64_t sh, int64_t pad, int64_t oh,
                  float *y, uint32_t flags) {
    return mixrt_ukernel_conv2d_grouped_f32(1, c, 5, 6, x, f, groups, 3, 3, wt,
                                            sh, sh, 1, 1, pad, pad, pad, pad,
                                            oh, 4, y, nullptr, flags);
  };
  const float *x = in.data(), *wt = w.data();
  float *y = out.data();
  CHECK(call(4, x, 6, 2, wt, 1, 0, 3, y, 0) == MIXRT_STATUS_OK);
  CHECK(out[0] == 18.0f); // 2 channels x 9 taps of 1 x 1
  CHECK(out[71] == 18.0f);
  const mixrt_status_code bad = MIXRT_STATUS_INVALID_ARGUMENT;
  CHECK(call(4, x, 6, 0, wt, 1, 0, 3, y, 0) == bad);
  CHECK(call(4, x, 6, -2, wt, 1, 0, 3, y, 0) == bad);
  CHECK(call(4, x, 6, 4, wt, 1, 0, 3, y, 0) == bad);  // F % groups
  CHECK(call(4, x, 6, 3, wt, 1, 0, 3, y, 0) == bad);  // C % groups
  CHECK(call(4, x, 6, 2, wt, 0, 0, 3, y, 0) == bad);  // stride 0
  CHECK(call(4, x, 6, 2, wt, 1, -1, 3, y, 0) == bad); // padding
  CHECK(call(4, x, 6, 2, wt, 1, 0, 4, y, 0) == bad);  // taps past row 4
  CHECK(call(4, x, 6, 2, wt, 1, 0, 3, y, 2) == bad);  // flags
  CHECK(call(4, nullptr, 6, 2, wt, 1, 0, 3, y, 0) == bad);
  CHECK(call(4, x, 6, 2, nullptr, 1, 0, 3, y, 0) == bad);
  CHECK(call(4, x, 6, 2, wt, 1, 0, 3, nullptr, 0) == bad);
  CHECK(call(int64_t{1} << 61, x, 6, 2, wt, 1, 0, 3, y, 0) == bad);
  // An empty output touches nothing (NULL pointers allowed).
  CHECK(call(4, nullptr, 0, 2, nullptr, 1, 0, 3, nullptr, 0) ==
        MIXRT_STATUS_OK);
}
