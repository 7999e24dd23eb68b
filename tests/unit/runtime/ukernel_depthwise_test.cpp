//===-- ukernel_depthwise_test.cpp - the depthwise f32 microkernel --------===//
//
// mixrt_ukernel_depthwise_f32 on every path this CPU has (forced one by one
// with mixrt_ukernel_set_isa), bit for bit against a plain reference of the
// contract of mixrt/ukernel.h (per output: fmaf over (kh, kw) ascending from
// +0, then + bias[c]); a NaN output must be a NaN in both (the payload is
// not part of the contract). Shapes: output widths 1, 7, 8, 9, 16, 17, 33
// (tails of the 8- and 16-lane rows), channels 1, 3, 17, two images, 3x3,
// 1x1, 5x3 and 2x4 windows, strides 1, 2, 3 (the gather), dilations 1, 2;
// no padding, symmetric, asymmetric and larger than the window, down to
// images whose every output is a border one (and an empty image: all
// padding); infinities, NaN, -0 and subnormals in the input and the
// weights, padded taps times an infinite or NaN weight; the padding inside
// the kernel equals the loops over an explicitly zero-padded copy, -0 sums
// included (rows of up to two vectors are staged on the stack by the
// vector paths, wider ones -- OW 33, 40, 70 -- take the border blocks:
// both covered); small planes, which the vector paths compute 8 or 16
// planes at a time across channels (images 1 to 14, plane counts that are
// not multiples of the group, channels wrapping inside a group); stride 2
// outside the small planes, which the vector paths compute on padded input
// rows deinterleaved into a ring on the stack (tall planes, rows of 1 to
// 40 outputs, 3x3 and 5x5, padding 0 to 2, dilation 2, 1x1 outputs, rows
// too wide for the ring); 3x3 and 5x5 stride 2 without dilation, which the
// AVX-512 paths deinterleave in registers inside the tap loop (row widths
// around 16, 32 and 64 outputs, every remainder of the 4-row blocks, pads 0
// to 2 and beyond the window, extra input columns, one-column images); 3x3
// and 5x5 stride 1 without dilation, which the vector paths stream through
// register-blocked output rows (row widths around 8, 16, 32 and 64 outputs,
// heights 1 to 13, the same pads, tall narrow planes); the words after the
// output stay untouched. Then
// threads (also splitting small planes mid-group), and the argument checks.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace mixrt::test;

namespace {

struct DwShape {
  int64_t n, c, oh, ow, kh, kw, sh, sw, dh, dw;
  /// [top, left, bottom, right]
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  /// Input rows and columns beyond those the taps read (none read them).
  int64_t extraH = 0, extraW = 0;
  /// The unpadded input: the padded extent the taps cover, minus the
  /// padding (at least 0), plus the extra rows and columns.
  int64_t h() const {
    const int64_t e = (oh - 1) * sh + (kh - 1) * dh + 1 - pt - pb;
    return (e < 0 ? 0 : e) + extraH;
  }
  int64_t w() const {
    const int64_t e = (ow - 1) * sw + (kw - 1) * dw + 1 - pl - pr;
    return (e < 0 ? 0 : e) + extraW;
  }
  int64_t outputs() const { return n * c * oh * ow; }
  DwShape padded(int64_t t, int64_t l, int64_t b, int64_t r) const {
    DwShape s = *this;
    s.pt = t, s.pl = l, s.pb = b, s.pr = r;
    return s;
  }
  DwShape extra(int64_t rows, int64_t cols) const {
    DwShape s = *this;
    s.extraH = rows, s.extraW = cols;
    return s;
  }
};

/// The contract, as plainly as possible; `relu`: arith.maximumf(x, +0)
/// after the bias (NaN kept, -0 to +0).
std::vector<float> reference(const DwShape &s, const std::vector<float> &in,
                             const std::vector<float> &w, const float *bias,
                             bool relu = false) {
  const int64_t h = s.h(), wd = s.w();
  std::vector<float> out(static_cast<size_t>(s.outputs()));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t x = 0; x < s.ow; ++x) {
          float acc = 0.0f;
          for (int64_t i = 0; i < s.kh; ++i)
            for (int64_t j = 0; j < s.kw; ++j) {
              const int64_t iy = y * s.sh + i * s.dh - s.pt;
              const int64_t ix = x * s.sw + j * s.dw - s.pl;
              // A padded tap is an fma of +0 (never skipped).
              const float v = iy >= 0 && iy < h && ix >= 0 && ix < wd
                                  ? in[((n * s.c + c) * h + iy) * wd + ix]
                                  : 0.0f;
              acc = std::fma(v, w[(c * s.kh + i) * s.kw + j], acc);
            }
          if (bias)
            acc = acc + bias[c];
          if (relu && !std::isnan(acc))
            acc = acc > 0.0f ? acc : 0.0f;
          out[((n * s.c + c) * s.oh + y) * s.ow + x] = acc;
        }
  return out;
}

mixrt_status_code run(const DwShape &s, const std::vector<float> &in,
                      const std::vector<float> &w, float *out,
                      const float *bias, uint32_t flags = 0) {
  return mixrt_ukernel_depthwise_f32(
      s.n, s.c, s.h(), s.w(), in.empty() ? nullptr : in.data(), s.kh, s.kw,
      w.data(), s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, s.pb, s.pr, s.oh, s.ow, out,
      bias, flags);
}

/// Random data; `specials`: infinities, NaN, -0, subnormals, and a border
/// of zeros around the input (padding) with an infinite weight reading it.
struct DwData {
  std::vector<float> in, w, bias;
  DwData(const DwShape &s, bool specials, std::mt19937 &rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const int64_t h = s.h(), wd = s.w();
    in.resize(static_cast<size_t>(s.n * s.c * h * wd));
    w.resize(static_cast<size_t>(s.c * s.kh * s.kw));
    bias.resize(static_cast<size_t>(s.c));
    for (float &v : in)
      v = normal(rng);
    for (float &v : w)
      v = normal(rng);
    for (float &v : bias)
      v = normal(rng);
    if (!specials || in.empty())
      return;
    // Zero borders (what mixc's padding writes).
    for (int64_t p = 0; p < s.n * s.c; ++p)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < wd; ++x)
          if (y == 0 || x == 0 || y == h - 1 || x == wd - 1)
            in[static_cast<size_t>((p * h + y) * wd + x)] = 0.0f;
    w[0] = INFINITY; // 0 x inf = NaN on the border rows and columns
    if (w.size() > 2)
      w[2] = -0.0f;
    in[in.size() / 2] = -INFINITY;
    in[in.size() / 3] = NAN;
    in[in.size() / 5] = 1e-40f;
    if (s.c > 1)
      w[static_cast<size_t>(s.kh * s.kw)] = NAN; // all of channel 1
    bias[0] = -0.0f;
  }
};

void checkShape(const DwShape &s, bool specials, bool withBias,
                std::mt19937 &rng, bool relu = false) {
  INFO("N " << s.n << " C " << s.c << " out " << s.oh << "x" << s.ow
            << " window " << s.kh << "x" << s.kw << " stride " << s.sh << ","
            << s.sw << " dilation " << s.dh << "," << s.dw << " padding "
            << s.pt << "," << s.pl << "," << s.pb << "," << s.pr
            << (specials ? " specials" : "") << (withBias ? " bias" : "")
            << (relu ? " relu" : ""));
  DwData d(s, specials, rng);
  const float *bias = withBias ? d.bias.data() : nullptr;
  const std::vector<float> want = reference(s, d.in, d.w, bias, relu);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    // Three guard words after the output.
    std::vector<float> got(want.size() + 3, f32FromBits(kSentinel));
    REQUIRE(run(s, d.in, d.w, got.data(), bias,
                relu ? uint32_t{MIXRT_UKERNEL_RELU} : 0u) == MIXRT_STATUS_OK);
    checkFloatsAndGuards(want, got);
  }
}

} // namespace

// MIXRT_UKERNEL_RELU: relu after the bias on chunks of planes (16 planes of
// at most 4096 outputs, else one): 40 small planes (two whole chunks and
// part of a third, across the 8/16-plane groups), a 65x65 plane (one per
// chunk), stride 2; NaN kept (specials: NaN inputs and a NaN weight).
TEST_CASE("ukernel.depthwise fuses relu after the bias",
          "[ukernel][depthwise]") {
  std::mt19937 rng(61);
  for (bool withBias : {false, true}) {
    checkShape(DwShape{1, 40, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), false,
               withBias, rng, /*relu=*/true);
    checkShape(DwShape{2, 3, 65, 65, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
               false, withBias, rng, /*relu=*/true);
    checkShape(DwShape{1, 5, 14, 14, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1), true,
               withBias, rng, /*relu=*/true);
  }
}

TEST_CASE("ukernel.depthwise equals the reference on every path",
          "[ukernel][depthwise]") {
  std::mt19937 rng(11);
  for (int64_t ow : {1, 7, 8, 9, 16, 17, 33})
    for (int64_t c : {1, 3, 17})
      for (int64_t stride : {1, 2, 3})
        for (int64_t dilation : {1, 2}) {
          const DwShape s{c == 3 ? 2 : 1, c,      5,        ow,      3, 3,
                          stride,         stride, dilation, dilation};
          checkShape(s, false, c != 1, rng);
        }
  for (DwShape s : {
           DwShape{1, 2, 6, 9, 1, 1, 1, 1, 1, 1},
           DwShape{1, 2, 3, 17, 5, 3, 1, 2, 1, 1},
           DwShape{2, 3, 4, 33, 2, 4, 2, 1, 1, 3},
           DwShape{1, 32, 9, 40, 3, 3, 1, 1, 1, 1},
       })
    checkShape(s, false, true, rng);
}

TEST_CASE("ukernel.depthwise pads inside the kernel on every path",
          "[ukernel][depthwise]") {
  std::mt19937 rng(21);
  // Symmetric, asymmetric (each side alone), and padding beyond the window.
  const int64_t pads[][4] = {
      {1, 1, 1, 1}, {0, 2, 1, 0}, {2, 0, 0, 1}, {1, 0, 2, 3}, {3, 3, 3, 3}};
  for (int64_t ow : {1, 7, 8, 9, 16, 17, 33})
    for (int64_t stride : {1, 2, 3})
      for (int64_t dilation : {1, 2})
        for (const auto &pad : pads) {
          const DwShape s =
              DwShape{2, 3, 6, ow, 3, 3, stride, stride, dilation, dilation}
                  .padded(pad[0], pad[1], pad[2], pad[3]);
          checkShape(s, false, ow % 2 == 1, rng);
        }
  // Windows other than 3x3, one stride per direction, many channels.
  for (DwShape s : {
           DwShape{1, 2, 3, 17, 5, 3, 1, 2, 1, 1}.padded(2, 1, 2, 1),
           DwShape{2, 3, 4, 33, 2, 4, 2, 1, 1, 3}.padded(0, 3, 1, 2),
           DwShape{1, 32, 9, 40, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 4, 20, 70, 3, 3, 2, 2, 1, 1}.padded(0, 0, 1, 1),
           DwShape{1, 2, 5, 19, 7, 7, 1, 1, 1, 1}.padded(3, 3, 3, 3),
       })
    checkShape(s, false, true, rng);
  // Tiny images: every output is a border one; a 1x1 image under a 3x3
  // window; an empty image (all taps padding).
  for (DwShape s : {
           DwShape{1, 3, 1, 1, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 3, 2, 2, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 3, 3, 3, 3, 3, 2, 2, 1, 1}.padded(2, 2, 2, 2),
           DwShape{2, 3, 2, 5, 5, 5, 1, 1, 1, 1}.padded(2, 2, 2, 2),
           DwShape{1, 2, 4, 4, 3, 3, 1, 1, 1, 1}.padded(3, 3, 3, 3),
           DwShape{1, 2, 3, 3, 3, 3, 1, 1, 1, 1}.padded(2, 2, 2, 2),
       }) {
    checkShape(s, false, true, rng);
    checkShape(s, true, false, rng);
  }
}

TEST_CASE("ukernel.depthwise padding equals a zero-padded copy",
          "[ukernel][depthwise]") {
  // The kernel's padding against the old contract: the same kernel (no
  // padding) over an explicit +0-padded copy. Bit for bit, including the
  // sign of zero sums: -1e-30 x 1e-30 underflows to -0, so a chain of
  // inside taps is -0, and a padded tap after them makes it +0 (fma(+0, w,
  // -0) = +0); skipping padded taps would leave -0.
  for (bool tiny : {false, true}) {
    const DwShape s0 = DwShape{1, 2, 4, 5, 3, 3, 1, 1, 1, 1};
    const DwShape s = s0.padded(1, 2, 2, 0);
    const int64_t h = s.h(), wd = s.w();
    REQUIRE(h == 3);
    REQUIRE(wd == 5);
    std::mt19937 rng(22);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> in(static_cast<size_t>(2 * h * wd));
    std::vector<float> w(18);
    for (float &v : in)
      v = tiny ? -1e-30f : normal(rng);
    for (float &v : w)
      v = tiny ? 1e-30f : normal(rng);
    // The padded copy: [pt + h + pb] x [pl + wd + pr].
    const DwShape sp = s0; // h() = 6, w() = 7
    REQUIRE(sp.h() == 6);
    REQUIRE(sp.w() == 7);
    std::vector<float> padded(static_cast<size_t>(2 * 6 * 7), 0.0f);
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < wd; ++x)
          padded[static_cast<size_t>((c * 6 + y + 1) * 7 + x + 2)] =
              in[static_cast<size_t>((c * h + y) * wd + x)];
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      INFO("path " << mixrt_ukernel_isa_name(isa) << (tiny ? " tiny" : ""));
      std::vector<float> want(40), got(40);
      REQUIRE(run(sp, padded, w, want.data(), nullptr) == MIXRT_STATUS_OK);
      REQUIRE(run(s, in, w, got.data(), nullptr) == MIXRT_STATUS_OK);
      for (size_t i = 0; i < 40; ++i) {
        INFO("out[" << i << "]");
        CHECK(bitsOf(got[i]) == bitsOf(want[i]));
      }
      if (tiny) {
        // Row 0: the padded row comes first, then inside taps: -0. Row 3
        // (the last): its last window rows are padding: +0 after -0.
        // Column 4: the last tap column of each row is inside (pr = 0),
        // but rows 2 and 3 end on padded rows.
        for (int64_t c = 0; c < 2; ++c) {
          CHECK(bitsOf(got[static_cast<size_t>(c * 20 + 0 * 5 + 4)]) ==
                0x80000000u);
          CHECK(bitsOf(got[static_cast<size_t>(c * 20 + 1 * 5 + 4)]) ==
                0x80000000u);
          CHECK(bitsOf(got[static_cast<size_t>(c * 20 + 3 * 5 + 4)]) == 0u);
          CHECK(bitsOf(got[static_cast<size_t>(c * 20 + 3 * 5 + 0)]) == 0u);
        }
      }
    }
  }
}

TEST_CASE("ukernel.depthwise propagates infinities and NaN like the loops",
          "[ukernel][depthwise]") {
  std::mt19937 rng(12);
  for (int64_t ow : {1, 7, 17, 33})
    for (int64_t stride : {1, 2})
      for (bool bias : {false, true}) {
        const DwShape s{1, 3, 6, ow, 3, 3, stride, stride, 1, 1};
        checkShape(s, true, bias, rng);
      }
  // A padded tap times an infinite weight is NaN, not 0: a 1x1 output whose
  // window is all zeros but for the centre.
  const DwShape s{1, 1, 1, 1, 3, 3, 1, 1, 1, 1};
  std::vector<float> in(9, 0.0f), w(9, 1.0f);
  in[4] = 2.0f;
  w[0] = INFINITY;
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    float out = 5.0f;
    REQUIRE(run(s, in, w, &out, nullptr) == MIXRT_STATUS_OK);
    CHECK(std::isnan(out));
  }
  // The same through the kernel's padding: a 1x1 image under a 3x3 window
  // padded by 1 on every side, an infinite (then NaN) weight on a padded
  // tap only: NaN; finite weights: exactly 2 x w[4], bias added.
  const DwShape one = DwShape{1, 1, 1, 1, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1);
  REQUIRE(one.h() == 1);
  REQUIRE(one.w() == 1);
  const std::vector<float> x1 = {2.0f};
  for (float special : {INFINITY, -INFINITY, NAN, 0.5f})
    for (int tap : {0, 2, 6, 8}) {
      std::vector<float> w1(9, 1.0f);
      w1[4] = 1.5f;
      w1[static_cast<size_t>(tap)] = special;
      const float b1 = 0.25f;
      for (mixrt_ukernel_isa isa : availablePaths()) {
        IsaScope scope(isa);
        INFO("path " << mixrt_ukernel_isa_name(isa) << " tap " << tap << " "
                     << special);
        float out = 5.0f;
        REQUIRE(mixrt_ukernel_depthwise_f32(
                    1, 1, 1, 1, x1.data(), 3, 3, w1.data(), 1, 1, 1, 1, 1, 1, 1,
                    1, 1, 1, &out, &b1, 0) == MIXRT_STATUS_OK);
        if (special == 0.5f)
          CHECK(out == 3.25f);
        else
          CHECK(std::isnan(out));
      }
    }
}

namespace {

/// The kernel on every path against the reference over an explicit
/// +0-padded copy of the input (no padding left to the kernel's loops).
void checkPaddedCopy(const DwShape &s, bool tiny, bool withBias,
                     std::mt19937 &rng) {
  INFO("padded copy: N " << s.n << " C " << s.c << " out " << s.oh << "x"
                         << s.ow << " stride " << s.sh << " dilation " << s.dh
                         << " padding " << s.pt << "," << s.pl << "," << s.pb
                         << "," << s.pr << (tiny ? " tiny" : ""));
  DwData d(s, false, rng);
  if (tiny) // -0 sums: -1e-30 x 1e-30 underflows to -0
    for (float &v : d.in)
      v = -1e-30f;
  if (tiny)
    for (float &v : d.w)
      v = 1e-30f;
  const int64_t h = s.h(), wd = s.w();
  const int64_t ph = s.pt + h + s.pb, pw = s.pl + wd + s.pr;
  std::vector<float> copy(static_cast<size_t>(s.n * s.c * ph * pw), 0.0f);
  for (int64_t p = 0; p < s.n * s.c; ++p)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < wd; ++x)
        copy[static_cast<size_t>((p * ph + y + s.pt) * pw + x + s.pl)] =
            d.in[static_cast<size_t>((p * h + y) * wd + x)];
  DwShape sp = s.padded(0, 0, 0, 0).extra(0, 0);
  sp.extraH = ph - sp.h(), sp.extraW = pw - sp.w();
  REQUIRE(sp.h() == ph);
  REQUIRE(sp.w() == pw);
  const float *bias = withBias ? d.bias.data() : nullptr;
  const std::vector<float> want = reference(sp, copy, d.w, bias);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    std::vector<float> got(want.size() + 3, f32FromBits(kSentinel));
    REQUIRE(run(s, d.in, d.w, got.data(), bias) == MIXRT_STATUS_OK);
    CHECK(std::memcmp(got.data(), want.data(), want.size() * 4) == 0);
    for (size_t i = want.size(); i < got.size(); ++i)
      CHECK(bitsOf(got[i]) == kSentinel);
  }
}

} // namespace

TEST_CASE("ukernel.depthwise small planes in channel batches on every path",
          "[ukernel][depthwise]") {
  // Rows of at most 16 outputs over at most 324 padded positions take the
  // vector paths' channel-batched code (8 or 16 planes per group): image
  // sizes 1, 2, 3, 5, 7 (MobileNet's 7x7 with 960 channels), plane counts
  // that are not multiples of 8 or 16 (1, 3, 17, and two images, whose
  // channels wrap inside a group), strides and dilations 1 and 2,
  // symmetric and asymmetric padding, input rows and columns no tap reads,
  // specials (infinite and NaN weights on padded taps, -0, NaN inputs).
  std::mt19937 rng(31);
  const int64_t pads[][4] = {{1, 1, 1, 1}, {0, 2, 1, 0}, {2, 1, 0, 1}};
  for (int64_t size : {1, 2, 3, 5, 7})
    for (int64_t c : {1, 3, 17})
      for (int64_t stride : {1, 2})
        for (int64_t dilation : {1, 2})
          for (const auto &pad : pads) {
            const DwShape s =
                DwShape{c == 3 ? 2 : 1, c,      size,     size,    3, 3,
                        stride,         stride, dilation, dilation}
                    .padded(pad[0], pad[1], pad[2], pad[3]);
            checkShape(s, false, c != 1, rng);
            checkShape(s, true, stride == 1, rng);
          }
  // MobileNet-V2's last depthwise layers (7x7, 960 channels; 14x14 with
  // stride 2 into 7x7), one image and two.
  for (DwShape s : {
           DwShape{1, 960, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{2, 960, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 960, 7, 7, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 33, 14, 14, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 19, 4, 16, 5, 5, 1, 1, 1, 1}.padded(2, 2, 2, 2),
           DwShape{1, 5, 6, 6, 7, 7, 1, 1, 1, 1}.padded(3, 3, 3, 3),
           // 5x5 stride 2 from 14x14 to 7x7 (EfficientNet-B0, MobileNet-V3):
           // 17 x 17 padded positions; 18 x 18, the most; 19 x 19 (the
           // stride-2 rows instead).
           DwShape{1, 35, 7, 7, 5, 5, 2, 2, 1, 1}.padded(2, 2, 2, 2),
           DwShape{2, 17, 7, 7, 5, 5, 2, 2, 1, 1}.padded(2, 2, 1, 1),
           DwShape{1, 19, 7, 7, 6, 6, 2, 2, 1, 1}.padded(2, 2, 3, 3),
           DwShape{1, 3, 8, 8, 5, 5, 2, 2, 1, 1}.padded(1, 1, 2, 2).extra(1, 1),
           DwShape{1, 17, 3, 3, 3, 3, 2, 2, 1, 1}
               .padded(1, 1, 0, 0)
               .extra(2, 3),
           DwShape{2, 3, 4, 5, 3, 3, 1, 1, 1, 1}.padded(0, 0, 0, 0).extra(1, 0),
       }) {
    checkShape(s, false, true, rng);
    checkShape(s, true, false, rng);
  }
  // Against the reference over an explicit +0-padded copy, -0 sums
  // included.
  for (int64_t c : {1, 3, 17, 960})
    for (int64_t stride : {1, 2})
      for (int64_t dilation : {1, 2})
        for (bool tiny : {false, true}) {
          const DwShape s =
              DwShape{1, c, 7, 7, 3, 3, stride, stride, dilation, dilation}
                  .padded(1, 2, 2, 0);
          checkPaddedCopy(s, tiny, !tiny, rng);
        }
  for (int64_t size : {1, 2, 3, 5})
    checkPaddedCopy(
        DwShape{2, 17, size, size, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), true,
        false, rng);
}

TEST_CASE("ukernel.depthwise stride 2 on every path", "[ukernel][depthwise]") {
  // Stride 2 along W outside the small planes: the vector paths deinterleave
  // the padded tap rows of 4 output rows into a ring on the stack (even
  // columns, then odd ones) and run unit-stride loads on them. Planes too
  // tall for the small-plane code (OH 9 to 40) with rows of 1 to 40
  // outputs (one vector and a tail, two vectors, 8 and 16 lanes), odd
  // sizes, padding 0, 1, 2 and asymmetric, 3x3 and 5x5 windows, dilations 1
  // and 2, stride 3 beside it (the gather), stride_h 1, 2 and 3 under
  // stride_w 2, channels 1, 3 and 17 (not multiples of 8 or 16; two images
  // whose channels wrap), 1x1 outputs of a window larger than the small
  // planes take, rows wider than the ring (the previous code), padding
  // wider than a vector; specials, and an explicit +0-padded copy (-0 sums).
  std::mt19937 rng(41);
  for (int64_t k : {3, 5})
    for (int64_t pad : {0, 1, 2})
      for (int64_t ow : {1, 7, 9, 16, 17, 28, 33, 40})
        for (int64_t stride : {2, 3})
          for (int64_t dilation : {1, 2}) {
            const int64_t oh = ow % 2 == 1 ? 11 : 40 - ow / 2;
            const int64_t c = ow == 17 ? 17 : ow % 3 == 1 ? 3 : 1;
            const DwShape s =
                DwShape{c == 3 ? 2 : 1, c,      oh,       ow,      k, k,
                        stride,         stride, dilation, dilation}
                    .padded(pad, pad, pad, pad);
            checkShape(s, false, (ow + pad) % 2 == 1, rng);
            if (ow == 17 || ow == 7)
              checkShape(s, true, pad == 1, rng);
          }
  for (DwShape s : {
           // stride_h 1 and 3 under stride_w 2; asymmetric padding.
           DwShape{1, 3, 13, 21, 3, 3, 1, 2, 1, 1}.padded(1, 0, 1, 2),
           DwShape{2, 3, 9, 19, 5, 5, 3, 2, 1, 1}.padded(2, 1, 0, 2),
           DwShape{1, 5, 12, 25, 5, 3, 2, 2, 2, 1}.padded(0, 2, 3, 1),
           // 1x1 outputs (a 7x7 window of dilation 3: not a small plane).
           DwShape{1, 17, 1, 1, 7, 7, 2, 2, 3, 3}.padded(2, 1, 2, 1),
           DwShape{2, 3, 1, 1, 7, 7, 2, 2, 3, 3},
           // Rows wider than the ring: the previous stride-2 code.
           DwShape{1, 3, 5, 300, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
           // Left padding beyond the first vectors of each half.
           DwShape{1, 3, 9, 30, 3, 3, 2, 2, 1, 1}.padded(1, 37, 1, 0),
           // MobileNet-V2's 112 -> 56 layer (a few channels) and the 5x5
           // stride-2 layers 28 -> 14 and 14 -> 7.
           DwShape{1, 5, 56, 56, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 19, 14, 14, 5, 5, 2, 2, 1, 1}.padded(2, 2, 2, 2),
           DwShape{1, 35, 7, 7, 5, 5, 2, 2, 1, 1}.padded(2, 2, 2, 2),
       }) {
    checkShape(s, false, true, rng);
    checkShape(s, true, false, rng);
  }
  for (int64_t ow : {7, 20, 33})
    for (bool tiny : {false, true}) {
      checkPaddedCopy(
          DwShape{1, 3, 24, ow, 3, 3, 2, 2, 1, 1}.padded(1, 2, 2, 0), tiny,
          !tiny, rng);
      checkPaddedCopy(
          DwShape{2, 3, 10, ow, 5, 5, 2, 2, 1, 2}.padded(2, 1, 0, 2), tiny,
          tiny, rng);
    }
}

TEST_CASE("ukernel.depthwise stride 2 with fused deinterleaving",
          "[ukernel][depthwise]") {
  // The AVX-512 paths compute 3x3 and 5x5 windows of stride 2 (both
  // directions, no dilation) outside the small planes with the deinterleave
  // in the tap loop: blocks of 4, 2, 1 output rows x up to 2 vectors of 16
  // outputs, per padded row 2 * NV + 1 loads masked at the ends of the row
  // (the last one read only for the columns shifted in), padding rows read
  // from a row of +0. Row widths around 16, 32 and 64 outputs, every
  // remainder of the 4-row blocks, padding 0 to 2 (and more rows than the
  // window), input columns beyond those the taps read (the loads' masks
  // end at the row, not at the taps), images of one column, rows of many
  // vectors, specials and an explicit +0-padded copy (-0 sums).
  std::mt19937 rng(43);
  const int64_t pads[][4] = {
      {0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 1, 1}, {0, 0, 2, 2}, {2, 2, 2, 2}};
  int variant = 0;
  for (int64_t k : {3, 5})
    for (int64_t ow : {17, 18, 31, 32, 33, 47, 48, 49, 63, 64, 65})
      for (int64_t oh : {1, 2, 3, 4, 7})
        for (const auto &pd : pads) {
          const int64_t c = 1 + (ow + oh) % 3;
          const DwShape s = DwShape{1 + c % 2, c, oh, ow, k, k, 2, 2, 1, 1}
                                .padded(pd[0], pd[1], pd[2], pd[3])
                                .extra(variant % 2, variant % 3);
          checkShape(s, variant % 7 == 0, variant % 2 == 1, rng);
          ++variant;
        }
  for (DwShape s : {
           // Images of one column (every tap column but one is padding).
           DwShape{1, 2, 60, 1, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 2, 60, 1, 5, 5, 2, 2, 1, 1}.padded(2, 2, 2, 2),
           DwShape{1, 2, 40, 2, 5, 5, 2, 2, 1, 1}.padded(2, 2, 2, 2),
           // Padding rows beyond the window: whole output rows of padding.
           DwShape{1, 2, 9, 20, 3, 3, 2, 2, 1, 1}.padded(3, 1, 4, 1),
           DwShape{1, 2, 9, 21, 5, 5, 2, 2, 1, 1}.padded(5, 2, 6, 2),
           // Rows of many vectors (inside blocks) and a tail.
           DwShape{1, 2, 5, 150, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
           DwShape{2, 3, 6, 100, 5, 5, 2, 2, 1, 1}.padded(2, 2, 2, 2),
           DwShape{1, 2, 6, 70, 3, 3, 2, 2, 1, 1}.extra(1, 9),
           // Padding wider than a vector, on either side.
           DwShape{1, 2, 5, 40, 3, 3, 2, 2, 1, 1}.padded(1, 37, 1, 20),
           DwShape{1, 2, 5, 40, 5, 5, 2, 2, 1, 1}.padded(0, 18, 2, 35),
       }) {
    checkShape(s, false, true, rng);
    checkShape(s, true, false, rng);
  }
  for (int64_t ow : {17, 32, 49})
    for (bool tiny : {false, true}) {
      checkPaddedCopy(DwShape{1, 3, 7, ow, 3, 3, 2, 2, 1, 1}.padded(1, 1, 2, 2),
                      tiny, !tiny, rng);
      checkPaddedCopy(DwShape{2, 2, 6, ow, 5, 5, 2, 2, 1, 1}.padded(2, 2, 1, 2),
                      tiny, tiny, rng);
    }
}

TEST_CASE("ukernel.depthwise stride 1 with the tap shifts in registers",
          "[ukernel][depthwise]") {
  // The vector paths compute 3x3 and 5x5 windows of stride 1 (no
  // dilation) outside the small planes by streaming input rows through
  // register-blocked output rows: per block of output rows and vectors of
  // outputs, each input row loaded once (masked at the ends of the row,
  // the last load only for the columns shifted in), every tap column a
  // shift of those loads, padding rows read from a row of +0. Row widths
  // around the vector widths (8, 16) and the blocks of vectors (32, 64),
  // every remainder of the row blocks (heights 1 to 13), padding 0 to 2
  // (asymmetric, and rows and columns of padding beyond the window), input
  // columns and rows beyond those the taps read, one-column images, tall
  // narrow planes the small-plane path does not take, specials (-0, Inf and
  // NaN weights on the padding) and an explicit +0-padded copy (-0 sums).
  std::mt19937 rng(47);
  const int64_t pads[][4] = {
      {0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {0, 1, 2, 0}, {2, 0, 1, 2}};
  int variant = 0;
  for (int64_t k : {3, 5})
    for (int64_t ow :
         {7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65})
      for (int64_t oh : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13})
        for (const auto &pd : pads) {
          if ((ow < 17 && oh < 12) || (oh > 9 && variant % 3 != 0)) {
            ++variant; // small planes: the channel batches
            continue;
          }
          const int64_t c = 1 + (ow + oh) % 3;
          const DwShape s = DwShape{1 + c % 2, c, oh, ow, k, k, 1, 1, 1, 1}
                                .padded(pd[0], pd[1], pd[2], pd[3])
                                .extra(variant % 2, variant % 3);
          checkShape(s, variant % 5 == 0, variant % 2 == 1, rng);
          ++variant;
        }
  for (DwShape s : {
           // Tall narrow planes (past the small-plane limits).
           DwShape{1, 3, 70, 9, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 2, 41, 16, 5, 5, 1, 1, 1, 1}.padded(2, 2, 2, 2),
           // Images of one column (every tap column but one is padding).
           DwShape{1, 2, 60, 1, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 2, 60, 1, 5, 5, 1, 1, 1, 1}.padded(2, 2, 2, 2),
           DwShape{1, 2, 40, 2, 5, 5, 1, 1, 1, 1}.padded(2, 2, 2, 2),
           // Padding rows beyond the window: whole output rows of padding.
           DwShape{1, 2, 9, 20, 3, 3, 1, 1, 1, 1}.padded(3, 1, 4, 1),
           DwShape{1, 2, 11, 21, 5, 5, 1, 1, 1, 1}.padded(5, 2, 6, 2),
           // Rows of many vectors (inside blocks) and a tail.
           DwShape{1, 2, 7, 150, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{2, 3, 6, 100, 5, 5, 1, 1, 1, 1}.padded(2, 2, 2, 2),
           DwShape{1, 2, 6, 70, 3, 3, 1, 1, 1, 1}.extra(1, 9),
           DwShape{1, 1, 5, 112, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           DwShape{1, 1, 6, 56, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           // Padding wider than a vector, on either side.
           DwShape{1, 2, 5, 40, 3, 3, 1, 1, 1, 1}.padded(1, 37, 1, 20),
           DwShape{1, 2, 5, 40, 5, 5, 1, 1, 1, 1}.padded(0, 18, 2, 35),
       }) {
    checkShape(s, false, true, rng);
    checkShape(s, true, false, rng);
  }
  for (int64_t ow : {17, 32, 49})
    for (bool tiny : {false, true}) {
      checkPaddedCopy(DwShape{1, 3, 7, ow, 3, 3, 1, 1, 1, 1}.padded(1, 1, 2, 2),
                      tiny, !tiny, rng);
      checkPaddedCopy(DwShape{2, 2, 6, ow, 5, 5, 1, 1, 1, 1}.padded(2, 2, 1, 2),
                      tiny, tiny, rng);
    }
}

TEST_CASE("ukernel.depthwise with threads gives bit-identical results",
          "[ukernel][depthwise]") {
  std::mt19937 rng(13);
  // Above the 2^20 multiply-adds that make it split: 2 x 37 planes of
  // 56 x 57 outputs x 9 taps, stride 1 and stride 2 (the deinterleaved
  // rows).
  for (const DwShape &s :
       {DwShape{2, 37, 56, 57, 3, 3, 1, 1, 1, 1},
        DwShape{2, 37, 56, 57, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1)}) {
    DwData d(s, false, rng);
    const std::vector<float> want = reference(s, d.in, d.w, d.bias.data());
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      INFO("path " << mixrt_ukernel_isa_name(isa));
      for (int32_t threads : {1, 2, 3}) {
        INFO(threads << " threads");
        REQUIRE(mixrt_set_num_threads(threads) == MIXRT_STATUS_OK);
        std::vector<float> got(want.size(), -7.0f);
        REQUIRE(run(s, d.in, d.w, got.data(), d.bias.data()) ==
                MIXRT_STATUS_OK);
        CHECK(std::memcmp(got.data(), want.data(), want.size() * 4) == 0);
      }
    }
  }
  REQUIRE(mixrt_set_num_threads(1) == MIXRT_STATUS_OK);
  // Small planes (the channel-batched code) split mid-image: 5 x 950
  // planes of 7 x 7 outputs; the parts start at planes 2375 (2 threads),
  // 1584 and 3168 (3 threads), channels 475, 634 and 318: groups whose
  // lanes are not aligned to the channels, and wrap from channel 949 to 0.
  const DwShape small =
      DwShape{5, 950, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1);
  DwData ds(small, false, rng);
  const std::vector<float> wantSmall =
      reference(small, ds.in, ds.w, ds.bias.data());
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa) << " small planes");
    for (int32_t threads : {1, 2, 3}) {
      INFO(threads << " threads");
      REQUIRE(mixrt_set_num_threads(threads) == MIXRT_STATUS_OK);
      std::vector<float> got(wantSmall.size(), -7.0f);
      REQUIRE(run(small, ds.in, ds.w, got.data(), ds.bias.data()) ==
              MIXRT_STATUS_OK);
      CHECK(std::memcmp(got.data(), wantSmall.data(), wantSmall.size() * 4) ==
            0);
    }
  }
  REQUIRE(mixrt_set_num_threads(1) == MIXRT_STATUS_OK);
}

TEST_CASE("ukernel.depthwise checks its arguments", "[ukernel][depthwise]") {
  // 1 x 2 planes of 5 x 6, 3x3: output 3 x 4.
  std::vector<float> in(60, 1.0f), w(18, 1.0f), out(24, 0.0f);
  auto call = [&](int64_t n, int64_t c, int64_t h, int64_t wd, const float *x,
                  int64_t kh, int64_t kw, const float *wt, int64_t sh,
                  int64_t sw, int64_t dh, int64_t dw, int64_t oh, int64_t ow,
                  float *y, uint32_t flags) {
    return mixrt_ukernel_depthwise_f32(n, c, h, wd, x, kh, kw, wt, sh, sw, dh,
                                       dw, 0, 0, 0, 0, oh, ow, y, nullptr,
                                       flags);
  };
  // Room for 2 planes of up to 7 x 7 outputs.
  std::vector<float> big(98, -7.0f);
  auto padded = [&](int64_t h, int64_t wd, const float *x, int64_t pt,
                    int64_t pl, int64_t pb, int64_t pr, int64_t oh,
                    int64_t ow) {
    return mixrt_ukernel_depthwise_f32(1, 2, h, wd, x, 3, 3, w.data(), 1, 1, 1,
                                       1, pt, pl, pb, pr, oh, ow, big.data(),
                                       nullptr, 0);
  };
  const float *x = in.data(), *wt = w.data();
  float *y = out.data();
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 3, 4, y, 0) ==
        MIXRT_STATUS_OK);
  CHECK(out[0] == 9.0f);
  const mixrt_status_code bad = MIXRT_STATUS_INVALID_ARGUMENT;
  // Negative sizes, windows, strides and dilations below 1, flags.
  CHECK(call(-1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, -2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 0, 3, wt, 1, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 0, wt, 1, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 0, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 0, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 0, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, -1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, -3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 3, 4, y, 2) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 3, 4, y,
             MIXRT_UKERNEL_RELU) == MIXRT_STATUS_OK);
  // The input must cover every tap: one row, one column, one dilation or
  // stride too many.
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 4, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 3, 5, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 2, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 2, 1, 1, 3, 4, y, 0) == bad);
  // NULL pointers, unless nothing is computed.
  CHECK(call(1, 2, 5, 6, nullptr, 3, 3, wt, 1, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, nullptr, 1, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 3, 4, nullptr, 0) == bad);
  CHECK(call(0, 2, 5, 6, nullptr, 3, 3, nullptr, 1, 1, 1, 1, 3, 4, nullptr,
             0) == MIXRT_STATUS_OK);
  CHECK(call(1, 2, 5, 6, nullptr, 3, 3, nullptr, 1, 1, 1, 1, 0, 4, nullptr,
             0) == MIXRT_STATUS_OK);
  // Sizes beyond PTRDIFF_MAX.
  const int64_t huge = int64_t(1) << 62;
  CHECK(call(huge, 2, 5, 6, x, 3, 3, wt, 1, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, wt, huge, 1, 1, 1, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, huge, huge, x, 3, 3, wt, 1, 1, 1, 1, 3, 4, y, 0) == bad);
  // Nothing written on a failure.
  CHECK(out[1] == 9.0f);
  // Paddings: negative ones; the padded input must cover the taps (5 x 6
  // padded by 1 on each side: 5 x 6 outputs, not 6 or 7); padding on one
  // side only covers that side.
  CHECK(padded(5, 6, x, -1, 0, 0, 0, 3, 4) == bad);
  CHECK(padded(5, 6, x, 0, -1, 0, 0, 3, 4) == bad);
  CHECK(padded(5, 6, x, 0, 0, -1, 0, 3, 4) == bad);
  CHECK(padded(5, 6, x, 0, 0, 0, -1, 3, 4) == bad);
  CHECK(padded(5, 6, x, 1, 1, 1, 1, 6, 6) == bad);
  CHECK(padded(5, 6, x, 1, 1, 1, 1, 5, 7) == bad);
  CHECK(padded(5, 6, x, 0, 0, 1, 0, 4, 4) == MIXRT_STATUS_OK);
  CHECK(padded(5, 6, x, 0, 0, 0, 1, 3, 5) == MIXRT_STATUS_OK);
  CHECK(padded(5, 6, x, 0, 0, 0, 1, 4, 5) == bad);
  CHECK(padded(5, 6, x, huge, 0, huge, 0, 3, 4) == bad);
  CHECK(padded(5, 6, x, 1, 1, 1, 1, 5, 6) == MIXRT_STATUS_OK);
  // The corner sees 2 x 2 ones of 3 x 3: 4; the centre 9.
  CHECK(big[0] == 4.0f);
  CHECK(big[1 * 6 + 1] == 9.0f);
  // An empty image (every tap padding) needs no input: all outputs +0.
  CHECK(padded(0, 0, nullptr, 1, 1, 2, 2, 1, 1) == MIXRT_STATUS_OK);
  CHECK(bitsOf(big[0]) == 0u);
  CHECK(bitsOf(big[1]) == 0u);
  CHECK(padded(5, 6, nullptr, 1, 1, 1, 1, 5, 6) == bad);
}
