//===-- ukernel_conv_test.cpp - the f32 convolution as GEMMs --------------===//
//
// mixrt_ukernel_conv2d_f32 on every path this CPU has (forced one by one
// with mixrt_ukernel_set_isa), bit for bit against a plain reference of the
// contract of mixrt/ukernel.h (per output: fmaf over (c, kh, kw) ascending
// from +0, a padded tap an fma of +0, then + bias[f]); a NaN output must be
// a NaN in both (the payload is not part of the contract). The shapes cross
// the kernel's blocks: K = C*KH*KW below, at and above the 128-k block
// (partial sums kept in the output between blocks: 1, 127, 128, 129, 257,
// 576, 1152), output planes below, at and across the 128-position block and the
// 16-column panels (1x1, 7x7, 8x8, 9x9, 12x12, 16x16, 56 wide), F of 1, 3, 17,
// 64 (every row tile), two images; 1x1 stride 1 without padding (the one-row
// copy, read in place), 1x1 stride 2, 3x3 with symmetric, asymmetric and large
// padding, 5x3 windows, strides 2 and 3, dilation 2, images whose outputs are
// all border ones; infinities, NaN, -0 and subnormals in the input and the
// weights, padded taps times an infinite weight (NaN where only padding is
// met); the words after the output stay untouched. Then threads (1, 2, 3:
// the same bits) and the argument checks.
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

/// The contract, as plainly as possible; `relu`: arith.maximumf(x, +0)
/// after the bias (NaN kept, -0 to +0).
std::vector<float> reference(const ConvShape &s, const std::vector<float> &in,
                             const std::vector<float> &w, const float *bias,
                             bool relu = false) {
  const int64_t h = s.h(), wd = s.w();
  std::vector<float> out(static_cast<size_t>(s.outputs()));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t f = 0; f < s.f; ++f)
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t x = 0; x < s.ow; ++x) {
          float acc = 0.0f;
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t j = 0; j < s.kw; ++j) {
                const int64_t iy = y * s.sh + i * s.dh - s.pt;
                const int64_t ix = x * s.sw + j * s.dw - s.pl;
                const float v = iy >= 0 && iy < h && ix >= 0 && ix < wd
                                    ? in[((n * s.c + c) * h + iy) * wd + ix]
                                    : 0.0f;
                acc =
                    std::fma(v, w[((f * s.c + c) * s.kh + i) * s.kw + j], acc);
              }
          if (bias)
            acc = acc + bias[f];
          if (relu && !std::isnan(acc))
            acc = acc > 0.0f ? acc : 0.0f;
          out[((n * s.f + f) * s.oh + y) * s.ow + x] = acc;
        }
  return out;
}

mixrt_status_code run(const ConvShape &s, const std::vector<float> &in,
                      const std::vector<float> &w, float *out,
                      const float *bias, uint32_t flags = 0) {
  return mixrt_ukernel_conv2d_f32(
      s.n, s.c, s.h(), s.w(), in.empty() ? nullptr : in.data(), s.f, s.kh, s.kw,
      w.empty() ? nullptr : w.data(), s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, s.pb,
      s.pr, s.oh, s.ow, out, bias, flags);
}

/// Random data; `specials`: infinities, NaN, -0 and subnormals, and an
/// infinite weight (0 x inf = NaN wherever its tap is padding).
struct ConvData {
  std::vector<float> in, w, bias;
  ConvData(const ConvShape &s, bool specials, std::mt19937 &rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    in.resize(static_cast<size_t>(s.n * s.c * s.h() * s.w()));
    w.resize(static_cast<size_t>(s.f * s.k()));
    bias.resize(static_cast<size_t>(s.f));
    for (float &v : in)
      v = normal(rng);
    for (float &v : w)
      v = normal(rng);
    for (float &v : bias)
      v = normal(rng);
    if (!specials || in.empty())
      return;
    w[0] = INFINITY;
    if (w.size() > 2)
      w[2] = -0.0f;
    in[in.size() / 2] = -INFINITY;
    in[in.size() / 3] = NAN;
    in[in.size() / 5] = 1e-40f;
    if (s.f > 1)
      w[static_cast<size_t>(s.k())] = NAN; // all of output channel 1
    bias[0] = -0.0f;
  }
};

void checkShape(const ConvShape &s, bool specials, bool withBias,
                std::mt19937 &rng, bool relu = false) {
  INFO("N " << s.n << " C " << s.c << " F " << s.f << " out " << s.oh << "x"
            << s.ow << " window " << s.kh << "x" << s.kw << " stride " << s.sh
            << "," << s.sw << " dilation " << s.dh << "," << s.dw << " padding "
            << s.pt << "," << s.pl << "," << s.pb << "," << s.pr
            << (specials ? " specials" : "") << (withBias ? " bias" : "")
            << (relu ? " relu" : ""));
  ConvData d(s, specials, rng);
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

TEST_CASE("ukernel.conv2d equals the reference on every path",
          "[ukernel][conv]") {
  std::mt19937 rng(23);
  // 1x1 stride 1 without padding (the one-row copy, read in place by whole
  // 16-column panels, packed for a block with a partial one): K across the
  // 128 blocks, planes across the 128-position block (8x8: one in-place
  // block; 12x12 and 16x16: in-place blocks of 128 and 16 or 128 and 128;
  // 7x7, 9x9: packed), two images.
  for (int64_t c : {1, 127, 128, 129, 257})
    for (int64_t side : {1, 7, 8, 9, 12, 16})
      checkShape(ConvShape{c == 1 || c == 129 ? 2 : 1, c, 17, side, side, 1, 1,
                           1, 1, 1, 1},
                 false, c != 127, rng);
  // 3x3 (K = 576 and 1152: three and five k blocks), every row tile of F.
  for (int64_t f : {1, 3, 17, 64})
    checkShape(ConvShape{1, 64, f, 9, 9, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
               false, true, rng);
  checkShape(ConvShape{1, 128, 20, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             false, true, rng);
  // A 56-wide plane: rows cross panels and blocks at every offset.
  checkShape(ConvShape{1, 8, 16, 6, 56, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             false, true, rng);
  for (ConvShape s : {
           // 1x1 stride 2 (not the one-row copy).
           ConvShape{2, 5, 9, 4, 11, 1, 1, 2, 2, 1, 1},
           // Strides 2 and 3, dilation 2, 5x3, asymmetric padding.
           ConvShape{1, 3, 5, 5, 17, 5, 3, 2, 1, 1, 2}.padded(2, 1, 0, 1),
           ConvShape{2, 4, 6, 7, 9, 3, 3, 3, 3, 2, 2}.padded(1, 2, 3, 0),
           ConvShape{1, 6, 7, 8, 33, 2, 4, 1, 2, 1, 1}.padded(0, 3, 1, 2),
           // Padding beyond the window: every output is a border one.
           ConvShape{1, 2, 3, 4, 5, 3, 3, 1, 1, 1, 1}.padded(3, 3, 3, 3),
       })
    checkShape(s, false, true, rng);
}

TEST_CASE("ukernel.conv2d propagates infinities and NaN like the loops",
          "[ukernel][conv]") {
  std::mt19937 rng(29);
  for (ConvShape s : {
           ConvShape{1, 3, 4, 6, 9, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           ConvShape{2, 30, 3, 5, 5, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           ConvShape{1, 300, 2, 3, 3, 1, 1, 1, 1, 1, 1},
       })
    for (bool withBias : {false, true})
      checkShape(s, true, withBias, rng);
}

// MIXRT_UKERNEL_RELU: the bias, then relu as arith.maximumf(x, +0) -- NaN
// outputs stay NaN, -0 (the bias -0 on an empty sum, a -0 product) becomes
// +0 -- on the block in cache, with and without a bias; the in-place 1x1
// path, a packed 3x3 one across k blocks, an empty sum.
TEST_CASE("ukernel.conv2d fuses relu after the bias", "[ukernel][conv]") {
  std::mt19937 rng(41);
  for (bool withBias : {false, true}) {
    for (ConvShape s : {
             ConvShape{2, 129, 17, 12, 12, 1, 1, 1, 1, 1, 1},
             ConvShape{1, 64, 20, 9, 9, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             ConvShape{1, 6, 7, 8, 33, 2, 4, 1, 2, 1, 1}.padded(0, 3, 1, 2),
             ConvShape{1, 0, 3, 2, 3, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
         })
      checkShape(s, false, withBias, rng, /*relu=*/true);
    checkShape(ConvShape{1, 3, 4, 6, 9, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
               true, withBias, rng, /*relu=*/true);
  }
}

TEST_CASE("ukernel.conv2d of an empty sum is +0 then the bias",
          "[ukernel][conv]") {
  std::mt19937 rng(31);
  // C = 0 (K = 0) and an input of no rows: every output is +0 (+ bias).
  checkShape(ConvShape{1, 0, 3, 2, 3, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             false, true, rng);
  checkShape(ConvShape{1, 0, 3, 2, 3, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             false, false, rng);
  checkShape(ConvShape{1, 2, 3, 2, 2, 3, 3, 1, 1, 1, 1}.padded(3, 1, 3, 1),
             false, true, rng);
}

TEST_CASE("ukernel.conv2d gives the same bits for any number of threads",
          "[ukernel][conv]") {
  std::mt19937 rng(37);
  for (ConvShape s : {
           ConvShape{2, 64, 32, 28, 28, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
           ConvShape{1, 256, 64, 14, 14, 1, 1, 1, 1, 1, 1},
       }) {
    ConvData d(s, false, rng);
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
}

TEST_CASE("ukernel.conv2d checks its arguments", "[ukernel][conv]") {
  // 1 image, 2 channels of 5 x 6, 3 filters of 3x3: output 3 x 4.
  std::vector<float> in(60, 1.0f), w(54, 1.0f), out(36, 0.0f);
  auto call = [&](int64_t n, int64_t c, int64_t h, int64_t wd, const float *x,
                  int64_t f, int64_t kh, int64_t kw, const float *wt,
                  int64_t sh, int64_t dh, int64_t pad, int64_t oh, int64_t ow,
                  float *y, uint32_t flags) {
    return mixrt_ukernel_conv2d_f32(n, c, h, wd, x, f, kh, kw, wt, sh, sh, dh,
                                    dh, pad, pad, pad, pad, oh, ow, y, nullptr,
                                    flags);
  };
  const float *x = in.data(), *wt = w.data();
  float *y = out.data();
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 3, 4, y, 0) ==
        MIXRT_STATUS_OK);
  CHECK(out[0] == 18.0f); // 2 channels x 9 taps of 1 x 1
  CHECK(out[35] == 18.0f);
  const mixrt_status_code bad = MIXRT_STATUS_INVALID_ARGUMENT;
  CHECK(call(-1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, -3, 3, 3, wt, 1, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 0, 3, wt, 1, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 0, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 0, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, -1, 3, 4, y, 0) == bad);
  // The taps of output row 3 would read input row 5 (of 0..4).
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 4, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 3, 5, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 3, 4, y, 2) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 3, 4, y,
             MIXRT_UKERNEL_A_PER_ROW | MIXRT_UKERNEL_RELU) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 3, 4, y,
             MIXRT_UKERNEL_RELU) == MIXRT_STATUS_OK);
  CHECK(call(1, 2, 5, 6, nullptr, 3, 3, 3, wt, 1, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, nullptr, 1, 1, 0, 3, 4, y, 0) == bad);
  CHECK(call(1, 2, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 3, 4, nullptr, 0) == bad);
  // Sizes whose byte counts overflow.
  CHECK(call(int64_t{1} << 40, 2, int64_t{1} << 20, 6, x, 3, 3, 3, wt, 1, 1, 0,
             3, 4, y, 0) == bad);
  CHECK(call(1, int64_t{1} << 61, 5, 6, x, 3, 3, 3, wt, 1, 1, 0, 3, 4, y, 0) ==
        bad);
  // An empty output touches nothing (NULL pointers allowed).
  CHECK(call(0, 2, 5, 6, nullptr, 3, 3, 3, nullptr, 1, 1, 0, 3, 4, nullptr,
             0) == MIXRT_STATUS_OK);
  CHECK(call(1, 2, 5, 6, nullptr, 0, 3, 3, nullptr, 1, 1, 0, 3, 4, nullptr,
             0) == MIXRT_STATUS_OK);
}
