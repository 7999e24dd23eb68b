//===-- ukernel_depthwise_s8_rescale_test.cpp - int8 depthwise, rescale ---===//
//
// mixrt_ukernel_depthwise_s8_rescale on every path this CPU has (forced one
// by one with mixrt_ukernel_set_isa), bit for bit against the contract of
// mixrt/ukernel.h: the sums are mixrt_ukernel_depthwise_f32's (no bias, no
// relu) on a converted copy of the input, (float)(x - zero point), on the
// portable path (tested bit for bit by ukernel_depthwise_test.cpp), then per
// output y = (float)((xs * ws[c]) * sum) in f64, + bias[c] (one f32 add),
// relu (y > 0 ? y : +0), written here in plain C++. Every combination of
// bias and relu runs on shapes that cross the kernel's chunks and bands: 3x3
// stride 1 on 56x56 planes (chunks of two planes, one across two images),
// 112x112 stride 2 and 100x100 planes (more than 8192 elements: bands of
// output rows), a 5x5 window of dilation 2 on a 150x200 plane with padding
// wider than a band's step (bands starting inside the top padding, a band
// wholly in the bottom padding), rows so wide that a band is one output row,
// a plane of exactly 8192 elements, 7x7 and 14x14 planes with C = 11 to 21
// (no multiple of 8 or 16) in 2 and 3 images (channel = plane mod C), H or W
// of 0 (every tap padding: sums of +0), asymmetric paddings, outputs cropped
// to fewer rows and columns than the padded input allows. Zero points -128,
// 0, 127 and others; integer weights in [-255, 255] (what mixc passes) and
// fractional ones with +-65536, -0. In-range extremes: every x -128 with
// zero point 127 and every x 127 with -128, weights of +-255 and +-65536.
// Tiny scales give subnormal y and -0 (relu'd to +0, -0 + a +0 bias: +0).
// Huge scales make some y infinite, both signs, by the product or only with
// the bias: the return is the index of the first (the smallest one, over
// bands and over 1, 2 and 3 threads, which split these 2^20 multiply-adds by
// planes), every output still written, and results are the same bytes for
// any thread count (also small planes split mid-image, chunks wrapping from
// the last channel to the first). The 16 words after every output stay
// untouched; refused arguments return -2 and write nothing; an empty output
// returns -1 with NULL pointers after the scalar checks.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace mixrt::test;

namespace {

constexpr size_t kGuards = 16;

/// A float in [lo, hi) from the generator's bits (no distribution: the same
/// values under every standard library).
float uniformFloat(std::mt19937 &rng, float lo, float hi) {
  return lo + (hi - lo) * (static_cast<float>(rng() >> 8) * 0x1p-24f);
}

/// An integer in [lo, hi].
int32_t uniformInt(std::mt19937 &rng, int32_t lo, int32_t hi) {
  return lo + static_cast<int32_t>(rng() % static_cast<uint32_t>(hi - lo + 1));
}

/// A depthwise problem's sizes: N images of C planes H x W, a KH x KW
/// window, strides, dilations, padding [top, left, bottom, right]; the
/// output every row and column the padded input allows, or fewer (cropped).
struct Shape {
  int64_t n, c, h, w, kh, kw, sh, sw, dh, dw;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  int64_t cropH = -1, cropW = -1;
  int64_t oh() const {
    return cropH >= 0 ? cropH : (h + pt + pb - (kh - 1) * dh - 1) / sh + 1;
  }
  int64_t ow() const {
    return cropW >= 0 ? cropW : (w + pl + pr - (kw - 1) * dw - 1) / sw + 1;
  }
  int64_t plane() const { return oh() * ow(); }
  int64_t inputs() const { return n * c * h * w; }
  int64_t outputs() const { return n * c * plane(); }
  Shape padded(int64_t t, int64_t l, int64_t b, int64_t r) const {
    Shape s = *this;
    s.pt = t, s.pl = l, s.pb = b, s.pr = r;
    return s;
  }
  Shape cropped(int64_t rows, int64_t cols) const {
    Shape s = *this;
    s.cropH = rows, s.cropW = cols;
    return s;
  }
};

std::string describe(const Shape &s) {
  std::ostringstream o;
  o << "N " << s.n << " C " << s.c << " in " << s.h << "x" << s.w << " out "
    << s.oh() << "x" << s.ow() << " window " << s.kh << "x" << s.kw
    << " stride " << s.sh << "," << s.sw << " dilation " << s.dh << "," << s.dw
    << " padding " << s.pt << "," << s.pl << "," << s.pb << "," << s.pr;
  return o.str();
}

/// Integer weights in [-255, 255] (int8 minus a zero point, as mixc
/// passes them), or fractional ones in [-2, 2) with the limits +-65536 and
/// -0 among them.
enum class Weights { integer, fractional };

/// The int8 input, the weights and the rescale's scales and bias.
struct Problem {
  Shape s;
  int32_t zp;
  std::vector<int8_t> in;
  std::vector<float> w;
  float xscale = 1.0f;
  std::vector<float> ws, bias;

  Problem(const Shape &shape, int32_t zeroPoint, Weights kind,
          std::mt19937 &rng)
      : s(shape), zp(zeroPoint) {
    in.resize(static_cast<size_t>(s.inputs()));
    w.resize(static_cast<size_t>(s.c * s.kh * s.kw));
    for (int8_t &v : in)
      v = static_cast<int8_t>(rng());
    for (float &v : w)
      v = kind == Weights::integer
              ? static_cast<float>(uniformInt(rng, -255, 255))
              : uniformFloat(rng, -2.0f, 2.0f);
    if (kind == Weights::fractional) {
      w[0] = 65536.0f;
      w[w.size() - 1] = -65536.0f;
      if (w.size() > 2)
        w[1] = -0.0f;
    }
    ws.resize(static_cast<size_t>(s.c));
    bias.resize(static_cast<size_t>(s.c));
  }
  int64_t channelOf(size_t i) const {
    return static_cast<int64_t>(i) / s.plane() % s.c;
  }
  const int8_t *input() const { return in.empty() ? nullptr : in.data(); }
};

/// The sums: mixrt_ukernel_depthwise_f32 (portable path, no bias, no relu)
/// on (float)(x - zp).
std::vector<float> sumsOf(const Problem &p) {
  IsaScope scope(MIXRT_UKERNEL_ISA_PORTABLE);
  const Shape &s = p.s;
  std::vector<float> x(p.in.size());
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(static_cast<int32_t>(p.in[i]) - p.zp);
  std::vector<float> sums(static_cast<size_t>(s.outputs()));
  REQUIRE(mixrt_ukernel_depthwise_f32(
              s.n, s.c, s.h, s.w, x.empty() ? nullptr : x.data(), s.kh, s.kw,
              p.w.data(), s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, s.pb, s.pr,
              s.oh(), s.ow(), sums.data(), nullptr, 0) == MIXRT_STATUS_OK);
  return sums;
}

struct Epilogue {
  bool bias = false, relu = false;
};

std::string describe(const Epilogue &e) {
  return std::string(e.bias ? "bias" : "no bias") +
         (e.relu ? ", relu" : ", no relu");
}

const Epilogue kEpilogues[] = {
    {false, false}, {false, true}, {true, false}, {true, true}};

/// The reference outputs and the index of the first non-finite y.
struct Expected {
  std::vector<float> y;
  int64_t first = -1;
  size_t posInf = 0, negInf = 0;
};

Expected expected(const Problem &p, const Epilogue &e,
                  const std::vector<float> &sums) {
  Expected x;
  x.y.resize(sums.size());
  size_t nans = 0;
  for (size_t i = 0; i < sums.size(); ++i) {
    const size_t c = static_cast<size_t>(p.channelOf(i));
    float y = static_cast<float>(
        (static_cast<double>(p.xscale) * static_cast<double>(p.ws[c])) *
        static_cast<double>(sums[i]));
    if (e.bias)
      y = y + p.bias[c];
    nans += std::isnan(y);
    if (std::isinf(y)) {
      if (x.first < 0)
        x.first = static_cast<int64_t>(i);
      ++(y > 0 ? x.posInf : x.negInf);
    }
    if (e.relu)
      y = y > 0.0f ? y : 0.0f;
    x.y[i] = y;
  }
  REQUIRE(nans == 0); // never with the contract's ranges
  return x;
}

int64_t run(const Problem &p, const Epilogue &e, float *out) {
  const Shape &s = p.s;
  return mixrt_ukernel_depthwise_s8_rescale(
      s.n, s.c, s.h, s.w, p.input(), p.zp, s.kh, s.kw, p.w.data(), s.sh, s.sw,
      s.dh, s.dw, s.pt, s.pl, s.pb, s.pr, s.oh(), s.ow(), p.xscale, p.ws.data(),
      e.bias ? p.bias.data() : nullptr, out,
      e.relu ? uint32_t{MIXRT_UKERNEL_RELU} : 0u);
}

/// `got` is want.size() outputs, then guard words of kSentinel: the outputs
/// must have want's bits exactly (-0 and +0 apart), the guards stay.
void checkBits(const std::vector<float> &want, const std::vector<float> &got) {
  REQUIRE(got.size() == want.size() + kGuards);
  size_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (bitsOf(got[i]) != bitsOf(want[i]) && ++wrong <= 5)
      UNSCOPED_INFO("out[" << i << "] = " << got[i] << " (bits " << std::hex
                           << bitsOf(got[i]) << "), reference " << want[i]
                           << " (bits " << bitsOf(want[i]) << std::dec << ")");
  CHECK(wrong == 0);
  size_t guards = 0;
  for (size_t i = want.size(); i < got.size(); ++i)
    guards += bitsOf(got[i]) == kSentinel;
  CHECK(guards == kGuards);
}

/// Runs `e` on the current path and thread count, checks the outputs, the
/// guards and the return.
void checkRun(const Problem &p, const Epilogue &e, const Expected &x) {
  INFO(describe(e));
  std::vector<float> out(x.y.size() + kGuards, f32FromBits(kSentinel));
  const int64_t got = run(p, e, out.data());
  checkBits(x.y, out);
  CHECK(got == x.first);
}

/// Ordinary scales and bias: xs 0.0123, ws[c] in [2^-9, 2^-6), the bias up
/// to half the channel's largest |y| either way (it moves some y across 0,
/// so the order of the bias and the relu shows).
void ordinaryScales(Problem &p, const std::vector<float> &sums,
                    std::mt19937 &rng) {
  p.xscale = 0.0123f;
  std::vector<double> top(static_cast<size_t>(p.s.c), 1.0);
  for (size_t i = 0; i < sums.size(); ++i) {
    double &t = top[static_cast<size_t>(p.channelOf(i))];
    t = std::max(t, std::fabs(static_cast<double>(sums[i])));
  }
  for (size_t c = 0; c < top.size(); ++c) {
    p.ws[c] = uniformFloat(rng, 0x1p-9f, 0x1p-6f);
    p.bias[c] = static_cast<float>(uniformFloat(rng, -0.5f, 0.5f) * p.xscale *
                                   p.ws[c] * top[c]);
  }
}

/// Every epilogue on every path (one thread); every y finite.
void checkEveryPath(const Problem &p, const std::vector<float> &sums) {
  std::vector<Expected> xs;
  for (const Epilogue &e : kEpilogues) {
    xs.push_back(expected(p, e, sums));
    REQUIRE(xs.back().first == -1);
  }
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    for (size_t v = 0; v < xs.size(); ++v)
      checkRun(p, kEpilogues[v], xs[v]);
  }
}

/// Random int8 data and weights of `kind`, ordinary scales, every epilogue
/// on every path.
void checkShape(const Shape &s, int32_t zp, Weights kind, std::mt19937 &rng) {
  INFO(describe(s) << " zero point " << zp
                   << (kind == Weights::integer ? " integer" : " fractional")
                   << " weights");
  Problem p(s, zp, kind, rng);
  const std::vector<float> sums = sumsOf(p);
  ordinaryScales(p, sums, rng);
  checkEveryPath(p, sums);
}

/// mixrt_set_num_threads(n) for a scope, then 1 thread (the default).
class ThreadsScope {
public:
  explicit ThreadsScope(int32_t n) {
    REQUIRE(mixrt_set_num_threads(n) == MIXRT_STATUS_OK);
  }
  ~ThreadsScope() { (void)mixrt_set_num_threads(1); }
};

} // namespace

TEST_CASE("ukernel.depthwise_s8_rescale equals the reference on every path",
          "[ukernel][depthwise][s8][dw_s8_rescale]") {
  std::mt19937 rng(101);
  // 56x56 (3136 elements): chunks of two planes; with C = 3 the chunk of
  // planes 2 and 3 holds channel 2 of image 0 and channel 0 of image 1.
  checkShape(Shape{2, 3, 56, 56, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), -128,
             Weights::integer, rng);
  checkShape(Shape{1, 5, 56, 56, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 0,
             Weights::fractional, rng);
  // Cropped: 50 x 41 outputs of the 56 x 56 the padding allows.
  checkShape(
      Shape{1, 3, 56, 56, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1).cropped(50, 41),
      37, Weights::integer, rng);
  // 112x112 stride 2 (12544 elements): bands of 36 output rows (the input
  // rows of a band fit 8192 floats), padding on the bottom and right only.
  checkShape(Shape{1, 3, 112, 112, 3, 3, 2, 2, 1, 1}.padded(0, 0, 1, 1), 127,
             Weights::integer, rng);
  checkShape(Shape{2, 2, 112, 112, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1), -9,
             Weights::fractional, rng);
  // 100x100 (bands of 79 rows), asymmetric padding and a cropped output.
  checkShape(Shape{1, 2, 100, 100, 3, 3, 1, 1, 1, 1}.padded(2, 0, 0, 1), 5,
             Weights::integer, rng);
  checkShape(Shape{1, 2, 100, 100, 3, 3, 1, 1, 1, 1}
                 .padded(1, 1, 1, 1)
                 .cropped(97, 60),
             -77, Weights::integer, rng);
  // 5x5 dilation 2 on 150 x 200 (bands of 32 output rows: 219 rows in 7
  // bands) with 40 rows of top padding (band 1 starts 8 rows inside it) and
  // 37 of bottom padding (band 6 reads only padding).
  checkShape(Shape{1, 2, 150, 200, 5, 5, 1, 1, 2, 2}.padded(40, 7, 37, 9), 17,
             Weights::integer, rng);
  checkShape(Shape{1, 1, 150, 200, 5, 5, 1, 1, 2, 2}.padded(40, 7, 37, 9), -128,
             Weights::fractional, rng);
  // Rows of 2730: a band is one output row (3 x 2730 = 8190 floats); the
  // same with dilation 3 (1000 x 7 = 7000), stride 2 and 3.
  checkShape(Shape{1, 2, 4, 2730, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 3,
             Weights::integer, rng);
  checkShape(Shape{1, 2, 10, 1000, 3, 3, 2, 3, 3, 1}.padded(2, 1, 1, 0), -3,
             Weights::integer, rng);
  // Exactly 8192 elements: one plane per chunk, whatever the window.
  checkShape(Shape{2, 2, 4, 2048, 5, 1, 1, 1, 1, 1}.padded(1, 0, 1, 0), 90,
             Weights::integer, rng);
  // Small planes with C no multiple of 8 or 16, 2 and 3 images.
  checkShape(Shape{3, 13, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 0,
             Weights::integer, rng);
  checkShape(Shape{2, 21, 14, 14, 3, 3, 2, 2, 1, 1}.padded(0, 0, 1, 1), -100,
             Weights::integer, rng);
  checkShape(Shape{3, 11, 14, 14, 5, 5, 1, 1, 1, 1}.padded(2, 2, 2, 2), 64,
             Weights::fractional, rng);
  checkShape(Shape{2, 19, 7, 7, 3, 3, 1, 1, 1, 1}.padded(0, 2, 2, 0), 127,
             Weights::integer, rng);
  checkShape(Shape{2, 3, 20, 30, 3, 3, 1, 1, 1, 1}.padded(0, 2, 3, 1), -50,
             Weights::integer, rng);
  // H or W of 0: every tap is padding (NULL input), every sum +0.
  checkShape(Shape{2, 3, 0, 5, 3, 3, 1, 1, 1, 1}.padded(2, 1, 2, 1), 7,
             Weights::integer, rng);
  checkShape(Shape{1, 4, 3, 0, 3, 3, 1, 1, 1, 1}.padded(1, 2, 1, 1), -128,
             Weights::integer, rng);
  checkShape(Shape{1, 2, 0, 0, 3, 3, 1, 1, 1, 1}.padded(2, 2, 1, 1), 0,
             Weights::fractional, rng);
}

// Every x -128 with zero point 127 (x - zp = -255) and every x 127 with
// -128 (+255), weights of +-255 (the largest mixc passes) and +-65536 (the
// contract's limits), in chunks and in bands.
TEST_CASE("ukernel.depthwise_s8_rescale at the extremes of its ranges",
          "[ukernel][depthwise][s8][dw_s8_rescale]") {
  std::mt19937 rng(103);
  for (const Shape &s :
       {Shape{1, 3, 56, 56, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
        Shape{1, 3, 112, 112, 3, 3, 2, 2, 1, 1}.padded(0, 0, 1, 1)})
    for (int8_t x : {int8_t{-128}, int8_t{127}}) {
      const int32_t zp = x < 0 ? 127 : -128;
      INFO(describe(s) << " every x " << int{x} << ", zero point " << zp);
      Problem p(s, zp, Weights::integer, rng);
      std::fill(p.in.begin(), p.in.end(), x);
      for (size_t i = 0; i < p.w.size(); ++i) {
        const float big = i < 9 ? 255.0f : 65536.0f; // channel 0: 255
        p.w[i] = (i % 3 == 1 ? -big : big);
      }
      p.w[18] = 3.0f; // channel 2 mixes
      const std::vector<float> sums = sumsOf(p);
      // The interior sums: +-255 x (255 + 255 - 255) x 3, both signs.
      const float interior = (x < 0 ? -255.0f : 255.0f) * 255.0f * 3.0f;
      REQUIRE(sums[static_cast<size_t>(s.ow() + 1)] == interior);
      ordinaryScales(p, sums, rng);
      checkEveryPath(p, sums);
    }
}

// (float) of a product below 2^-126: subnormal y, and -0 for a negative sum
// below half the smallest subnormal (relu'd to +0; -0 + a bias of +0 is +0);
// a subnormal bias; a channel of +0 and -0 weights (sums of +0: y +0). Small
// planes and bands.
TEST_CASE("ukernel.depthwise_s8_rescale rounds subnormal and zero y exactly",
          "[ukernel][depthwise][s8][dw_s8_rescale]") {
  std::mt19937 rng(107);
  for (const Shape &s :
       {Shape{2, 11, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
        Shape{1, 7, 90, 100, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1)}) {
    INFO(describe(s));
    Problem p(s, -5, Weights::integer, rng);
    for (int64_t k = 0; k < s.kh * s.kw; ++k)
      p.w[static_cast<size_t>(2 * s.kh * s.kw + k)] = k % 2 ? -0.0f : 0.0f;
    const std::vector<float> sums = sumsOf(p);
    p.xscale = 1e-30f;
    for (size_t c = 0; c < p.ws.size(); ++c) {
      // xs x ws from 2^-172 to 2^-151: y from +-0 (every sum of channels 0
      // and 6, the small ones of the others) to subnormals.
      p.ws[c] = std::ldexp(uniformFloat(rng, 1.0f, 2.0f),
                           -72 + 4 * static_cast<int>(c % 6));
      p.bias[c] = c % 3 == 0 ? 0.0f : uniformFloat(rng, -1e-40f, 1e-40f);
    }
    size_t negZero = 0, posZero = 0, subnormal = 0;
    const Expected plain = expected(p, {}, sums);
    for (float y : plain.y) {
      negZero += bitsOf(y) == 0x80000000u;
      posZero += bitsOf(y) == 0u;
      subnormal += std::fpclassify(y) == FP_SUBNORMAL;
    }
    INFO(negZero << " -0, " << posZero << " +0, " << subnormal
                 << " subnormal of " << sums.size());
    REQUIRE(negZero > 10);
    REQUIRE(posZero > static_cast<size_t>(s.n * s.plane()));
    REQUIRE(subnormal > sums.size() / 4);
    checkEveryPath(p, sums);
  }
}

// xs 1e30 on 3 images of 5 planes 92 x 92 (bands of 87 and 5 output rows),
// 1.1 million multiply-adds: split over 2 threads (planes 0-7, 8-14) and 3
// (an image each). Channel 1's input is small (|x - zp| <= 3) but for the
// input rows 88-91 of image 2: only its y in band 1 of plane 11 can
// overflow. Scenario A: channel 4's scale also makes a third of its y
// infinite, both signs, in every image (the first in plane 4, a lower index
// than plane 11's, found by another thread), and channel 0's y reach 1e38,
// its bias of 3e38 making the positive ones infinite (only with the bias:
// then plane 0). Scenario B: only plane 11 overflows.
TEST_CASE("ukernel.depthwise_s8_rescale reports the first non-finite y",
          "[ukernel][depthwise][s8][dw_s8_rescale]") {
  std::mt19937 rng(109);
  const Shape s = Shape{3, 5, 92, 92, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1);
  REQUIRE(s.n * s.c * s.plane() * s.kh * s.kw >= (int64_t{1} << 20));
  const int32_t zp = -3;
  Problem p(s, zp, Weights::integer, rng);
  const int64_t inPlane = s.h * s.w, plane = s.plane();
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t i = 0; i < inPlane; ++i)
      if (n < 2 || i < 88 * s.w)
        p.in[static_cast<size_t>((n * s.c + 1) * inPlane + i)] =
            static_cast<int8_t>(zp + uniformInt(rng, -3, 3));
  const std::vector<float> sums = sumsOf(p);
  auto absSum = [&](int64_t q, int64_t i) {
    return std::fabs(
        static_cast<double>(sums[static_cast<size_t>(q * plane + i)]));
  };
  auto largest = [&](int64_t c) {
    double m = 0;
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t i = 0; i < plane; ++i)
        m = std::max(m, absSum(n * s.c + c, i));
    return m;
  };
  // Channel 1: small sums everywhere but in plane 11's last rows.
  double small1 = 0;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t i = 0; i < (n < 2 ? plane : 87 * s.ow()); ++i)
      small1 = std::max(small1, absSum(n * s.c + 1, i));
  const double large1 = largest(1);
  INFO("channel 1: |sum| up to " << small1 << " outside band 1 of plane 11, "
                                 << large1 << " in it");
  REQUIRE(large1 > 4 * small1);
  // |y| >= 3.4028236e38 is infinite: |sum| above 3.4028236e8 / ws.
  p.xscale = 1e30f;
  auto ordinary = [&] {
    for (size_t c = 0; c < p.ws.size(); ++c) {
      p.ws[c] = uniformFloat(rng, 0.5f, 2.0f) * 1e-30f;
      p.bias[c] = uniformFloat(rng, -1e37f, 1e37f);
    }
    p.ws[1] = static_cast<float>(3.45e8 / (0.95 * large1));
  };
  std::vector<float> sorted4;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t i = 0; i < plane; ++i)
      sorted4.push_back(static_cast<float>(absSum(n * s.c + 4, i)));
  std::sort(sorted4.begin(), sorted4.end());
  for (char scenario : {'A', 'B'}) {
    INFO("scenario " << scenario);
    ordinary();
    if (scenario == 'A') {
      p.ws[4] = static_cast<float>(3.45e8 / sorted4[sorted4.size() * 2 / 3]);
      p.ws[0] = static_cast<float>(1e8 / largest(0));
      p.bias[0] = 3e38f;
    }
    std::vector<Expected> xs;
    for (const Epilogue &e : kEpilogues) {
      INFO(describe(e));
      xs.push_back(expected(p, e, sums));
      const Expected &x = xs.back();
      INFO("the first infinite y at " << x.first << ", " << x.posInf
                                      << " +Inf, " << x.negInf << " -Inf");
      REQUIRE(x.first >= 0);
      if (scenario == 'A') {
        REQUIRE(x.first / plane == (e.bias ? 0 : 4));
        REQUIRE(x.negInf > 0);
        REQUIRE(x.posInf > 0);
      } else {
        REQUIRE(x.first / plane == 2 * s.c + 1);
        REQUIRE(x.first % plane / s.ow() >= 87);
      }
    }
    for (int32_t threads : {1, 2, 3}) {
      INFO(threads << " threads");
      ThreadsScope pool(threads);
      for (mixrt_ukernel_isa isa : availablePaths()) {
        IsaScope scope(isa);
        INFO("path " << mixrt_ukernel_isa_name(isa));
        for (size_t v = 0; v < xs.size(); ++v)
          checkRun(p, kEpilogues[v], xs[v]);
      }
    }
  }
}

// 2 images of 1201 planes 7 x 7 (1.06 million multiply-adds): chunks of
// 167 planes, the one of planes 1169-1335 wrapping from channel 1200 to 0
// (one thread); 2 threads split at image 1, 3 at planes 801 and 1602
// (channels 801 and 401). 1, 2 and 3 threads: the same bytes.
TEST_CASE("ukernel.depthwise_s8_rescale gives the same bytes on any threads",
          "[ukernel][depthwise][s8][dw_s8_rescale]") {
  std::mt19937 rng(113);
  const Shape s = Shape{2, 1201, 7, 7, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1);
  REQUIRE(s.n * s.c * s.plane() * s.kh * s.kw >= (int64_t{1} << 20));
  Problem p(s, 11, Weights::integer, rng);
  const std::vector<float> sums = sumsOf(p);
  ordinaryScales(p, sums, rng);
  std::vector<Expected> xs;
  for (const Epilogue &e : kEpilogues) {
    xs.push_back(expected(p, e, sums));
    REQUIRE(xs.back().first == -1);
  }
  for (int32_t threads : {1, 2, 3}) {
    INFO(threads << " threads");
    ThreadsScope pool(threads);
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      INFO("path " << mixrt_ukernel_isa_name(isa));
      for (size_t v = 0; v < xs.size(); ++v)
        checkRun(p, kEpilogues[v], xs[v]);
    }
  }
}

TEST_CASE("ukernel.depthwise_s8_rescale refuses bad arguments, writing nothing",
          "[ukernel][depthwise][s8][dw_s8_rescale]") {
  // 1 image, 2 planes of 5 x 6, 3x3: output 2 x 3 x 4.
  const std::vector<int8_t> in(60, 4);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Args {
    int64_t n = 1, c = 2, h = 5, w = 6, kh = 3, kw = 3, sh = 1, sw = 1, dh = 1,
            dw = 1, pt = 0, pl = 0, pb = 0, pr = 0, oh = 3, ow = 4;
    const int8_t *x = nullptr;
    int32_t zp = 1;
    std::vector<float> wt = std::vector<float>(18, 2.0f);
    float xscale = 0.5f;
    std::vector<float> ws = {1.0f, 0.25f}, bias = {1.0f, -1.0f};
    bool noW = false, noWs = false, useBias = true, noOut = false;
    uint32_t flags = 0;
  };
  auto base = [&] {
    Args a;
    a.x = in.data();
    return a;
  };
  // Runs `a` into 24 + 16 words of kSentinel; true if they all stay so.
  auto call = [&](const Args &a, int64_t *ret, std::vector<float> *kept) {
    std::vector<float> out(24 + kGuards, f32FromBits(kSentinel));
    *ret = mixrt_ukernel_depthwise_s8_rescale(
        a.n, a.c, a.h, a.w, a.x, a.zp, a.kh, a.kw,
        a.noW ? nullptr : a.wt.data(), a.sh, a.sw, a.dh, a.dw, a.pt, a.pl, a.pb,
        a.pr, a.oh, a.ow, a.xscale, a.noWs ? nullptr : a.ws.data(),
        a.useBias ? a.bias.data() : nullptr, a.noOut ? nullptr : out.data(),
        a.flags);
    if (kept)
      *kept = out;
    return std::all_of(out.begin(), out.end(),
                       [](float v) { return bitsOf(v) == kSentinel; });
  };
  auto refused = [&](const Args &a) {
    int64_t ret = 0;
    const bool untouched = call(a, &ret, nullptr);
    CHECK(ret == -2);
    CHECK(untouched);
  };
  // Accepted: returns -1, writes the 24 outputs and nothing after them.
  auto accepted = [&](const Args &a) {
    int64_t ret = 0;
    std::vector<float> out;
    call(a, &ret, &out);
    CHECK(ret == -1);
    CHECK(std::none_of(out.begin(), out.begin() + 24,
                       [](float v) { return bitsOf(v) == kSentinel; }));
    CHECK(std::all_of(out.begin() + 24, out.end(),
                      [](float v) { return bitsOf(v) == kSentinel; }));
  };
  // The valid call: every sum 9 x 3 x 2 = 54; y = 0.5 x ws x 54 + b.
  {
    int64_t ret = 0;
    std::vector<float> out;
    Args a = base();
    call(a, &ret, &out);
    CHECK(ret == -1);
    CHECK(out[0] == 28.0f);
    CHECK(out[11] == 28.0f);
    CHECK(out[12] == 5.75f);
    CHECK(out[23] == 5.75f);
    CHECK(bitsOf(out[24]) == kSentinel);
    a.flags = MIXRT_UKERNEL_RELU;
    a.bias = {-40.0f, 1.0f};
    call(a, &ret, &out);
    CHECK(ret == -1);
    CHECK(bitsOf(out[0]) == 0u); // relu(-13): +0
    CHECK(out[12] == 7.75f);
  }
  for (uint32_t flags : {uint32_t{2}, uint32_t{1} << 3, uint32_t{1} << 31,
                         uint32_t{MIXRT_UKERNEL_RELU} | 4u}) {
    INFO("flags " << flags);
    Args a = base();
    a.flags = flags;
    refused(a);
  }
  for (int32_t zp : {128, -129, 1000, std::numeric_limits<int32_t>::min()}) {
    INFO("zero point " << zp);
    Args a = base();
    a.zp = zp;
    refused(a);
  }
  for (int32_t zp : {-128, 127}) {
    Args a = base();
    a.zp = zp;
    accepted(a);
  }
  for (float v : {0.0f, -0.0f, -1.0f, -1e-40f, nan, inf, -inf}) {
    INFO("scale " << v);
    Args a = base();
    a.xscale = v;
    refused(a);
    a = base();
    a.ws[1] = v;
    refused(a);
    a = base();
    a.ws[0] = v;
    a.flags = MIXRT_UKERNEL_RELU;
    refused(a);
  }
  {
    // Tiny and huge finite scales are accepted.
    Args a = base();
    a.xscale = 1e-45f;
    a.ws = {std::numeric_limits<float>::max(), 1e-45f};
    accepted(a);
  }
  for (float v : {nan, inf, -inf}) {
    INFO("bias " << v);
    Args a = base();
    a.bias[1] = v;
    refused(a);
    a.flags = MIXRT_UKERNEL_RELU;
    refused(a);
    // Not read without a bias.
    a.useBias = false;
    accepted(a);
  }
  for (float v : {nan, inf, -inf, std::nextafter(65536.0f, inf),
                  std::nextafter(-65536.0f, -inf), 1e6f, -1e30f}) {
    INFO("weight " << v);
    for (size_t k : {size_t{0}, size_t{17}}) {
      Args a = base();
      a.wt[k] = v;
      refused(a);
    }
  }
  {
    // The limits themselves and -0 are weights.
    Args a = base();
    a.wt[0] = 65536.0f;
    a.wt[9] = -65536.0f;
    a.wt[17] = -0.0f;
    accepted(a);
  }
  // What mixrt_ukernel_depthwise_f32 refuses.
  {
    const int64_t huge = int64_t{1} << 61;
    std::vector<std::pair<const char *, Args>> bad;
    auto add = [&](const char *what, auto edit) {
      Args a = base();
      edit(a);
      bad.emplace_back(what, a);
    };
    add("N -1", [](Args &a) { a.n = -1; });
    add("C -1", [](Args &a) { a.c = -1; });
    add("H -1", [](Args &a) { a.h = -1; });
    add("W -1", [](Args &a) { a.w = -1; });
    add("KH 0", [](Args &a) { a.kh = 0; });
    add("KW 0", [](Args &a) { a.kw = 0; });
    add("stride_h 0", [](Args &a) { a.sh = 0; });
    add("stride_w 0", [](Args &a) { a.sw = 0; });
    add("dilation_h 0", [](Args &a) { a.dh = 0; });
    add("dilation_w 0", [](Args &a) { a.dw = 0; });
    add("pad_top -1", [](Args &a) { a.pt = -1; });
    add("pad_left -1", [](Args &a) { a.pl = -1; });
    add("pad_bottom -1", [](Args &a) { a.pb = -1; });
    add("pad_right -1", [](Args &a) { a.pr = -1; });
    add("OH -1", [](Args &a) { a.oh = -1; });
    add("OH 4: a row beyond the input", [](Args &a) { a.oh = 4; });
    add("OW 5: a column beyond the input", [](Args &a) { a.ow = 5; });
    add("dilation 2: beyond the input", [](Args &a) { a.dh = 2; });
    add("stride_w 2: beyond the input", [](Args &a) { a.sw = 2; });
    add("C huge", [&](Args &a) { a.c = huge; });
    add("N huge", [&](Args &a) { a.n = huge; });
    add("NULL input", [](Args &a) { a.x = nullptr; });
    add("NULL weight", [](Args &a) { a.noW = true; });
    add("NULL weight scales", [](Args &a) { a.noWs = true; });
    add("NULL output", [](Args &a) { a.noOut = true; });
    for (const auto &b : bad) {
      INFO(b.first);
      refused(b.second);
    }
  }
  // A plane of more than 8192 elements whose window rows do not fit 8192
  // floats: W x ((KH - 1) x dilation_h + 1) > 8192. At the limits: 4 x 2730
  // (3 rows of 8190) and 10 x 1000 with dilation 3 (7 rows: 7000) are
  // accepted, 4 x 2731 (8193) and dilation 4 (9 rows: 9000) refused; a plane
  // of exactly 8192 (4 x 2048) with 5-row windows (10240) is a chunk:
  // accepted, 4 x 2049 refused.
  {
    struct Big {
      int64_t h, w, kh, dh, pad;
      bool ok;
    };
    for (const Big &b :
         {Big{4, 2730, 3, 1, 1, true}, Big{4, 2731, 3, 1, 1, false},
          Big{10, 1000, 3, 3, 0, true}, Big{10, 1000, 3, 4, 0, false},
          Big{4, 2048, 5, 1, 1, true}, Big{4, 2049, 5, 1, 1, false}}) {
      INFO(b.h << " x " << b.w << " window rows " << b.kh << " dilation "
               << b.dh);
      const std::vector<int8_t> x(static_cast<size_t>(b.h * b.w), 1);
      const std::vector<float> wt(static_cast<size_t>(b.kh), 1.0f);
      const float one = 1.0f;
      const int64_t oh = b.h + 2 * b.pad - (b.kh - 1) * b.dh;
      const size_t outputs = static_cast<size_t>(oh * b.w);
      std::vector<float> out(outputs + kGuards, f32FromBits(kSentinel));
      const int64_t ret = mixrt_ukernel_depthwise_s8_rescale(
          1, 1, b.h, b.w, x.data(), 0, b.kh, 1, wt.data(), 1, 1, b.dh, 1, b.pad,
          0, b.pad, 0, oh, b.w, 1.0f, &one, nullptr, out.data(), 0);
      const size_t untouched = static_cast<size_t>(
          std::count_if(out.begin(), out.end(),
                        [](float v) { return bitsOf(v) == kSentinel; }));
      if (b.ok) {
        CHECK(ret == -1);
        CHECK(untouched == kGuards);
        // Output row 1: the sum of its taps inside the image (x 1 x 1).
        int64_t inside = 0;
        for (int64_t k = 0; k < b.kh; ++k)
          inside += 1 + k * b.dh - b.pad >= 0 && 1 + k * b.dh - b.pad < b.h;
        CHECK(out[static_cast<size_t>(b.w)] == static_cast<float>(inside));
        CHECK(out[outputs - 1] > 0.0f);
      } else {
        CHECK(ret == -2);
        CHECK(untouched == out.size());
      }
    }
  }
  // An empty output: -1, nothing written, NULL pointers allowed; the scalars
  // and sizes are still checked.
  {
    struct Empty {
      const char *what;
      int64_t n, c, oh, ow;
    };
    for (const Empty &z :
         {Empty{"N 0", 0, 2, 3, 4}, Empty{"C 0", 1, 0, 3, 4},
          Empty{"OH 0", 1, 2, 0, 4}, Empty{"OW 0", 1, 2, 3, 0}}) {
      INFO(z.what);
      std::vector<float> out(kGuards, f32FromBits(kSentinel));
      auto empty = [&](float xscale, int32_t zp, int64_t stride,
                       uint32_t flags) {
        return mixrt_ukernel_depthwise_s8_rescale(
            z.n, z.c, 5, 6, nullptr, zp, 3, 3, nullptr, stride, 1, 1, 1, 0, 0,
            0, 0, z.oh, z.ow, xscale, nullptr, nullptr, out.data(), flags);
      };
      CHECK(empty(0.5f, 0, 1, 0) == -1);
      CHECK(empty(0.5f, -128, 1, MIXRT_UKERNEL_RELU) == -1);
      CHECK(mixrt_ukernel_depthwise_s8_rescale(
                z.n, z.c, 5, 6, nullptr, 0, 3, 3, nullptr, 1, 1, 1, 1, 0, 0, 0,
                0, z.oh, z.ow, 0.5f, nullptr, nullptr, nullptr, 0) == -1);
      CHECK(empty(0.0f, 0, 1, 0) == -2);
      CHECK(empty(nan, 0, 1, 0) == -2);
      CHECK(empty(0.5f, 128, 1, 0) == -2);
      CHECK(empty(0.5f, 0, 1, 2) == -2);
      CHECK(empty(0.5f, 0, 0, 0) == -2);
      CHECK(std::all_of(out.begin(), out.end(),
                        [](float v) { return bitsOf(v) == kSentinel; }));
    }
    // A plane of more than 8192 elements with no output: -1 before the
    // band check (whose window span (KH - 1) x dilation_h is unbounded
    // here: 2^63 - 1, no overflow), as mixrt_ukernel_depthwise_f32 accepts
    // it.
    std::vector<float> out(kGuards, f32FromBits(kSentinel));
    CHECK(mixrt_ukernel_depthwise_s8_rescale(
              1, 2, 100, 100, nullptr, 0, 2, 1, nullptr, 1, 1,
              std::numeric_limits<int64_t>::max(), 1, 0, 0, 0, 0, 0, 100, 0.5f,
              nullptr, nullptr, out.data(), 0) == -1);
    CHECK(std::all_of(out.begin(), out.end(),
                      [](float v) { return bitsOf(v) == kSentinel; }));
  }
}
