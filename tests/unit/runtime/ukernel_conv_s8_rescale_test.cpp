//===-- ukernel_conv_s8_rescale_test.cpp - int8 conv with the rescale -----===//
//
// mixrt_ukernel_conv2d_s8_rescale on every path this CPU has (forced one by
// one with mixrt_ukernel_set_isa), exactly against a plain reference of the
// contract of mixrt/ukernel.h written here: per output, y = (float)((xs *
// ws[f]) * sum) in f64, + bias[f] (one f32 add), relu (y > 0 ? y : +0); an
// f32 output is y bit for bit, an int8 one y quantized (roundeven(y /
// scale) + zero point, clamped to [qmin, 127]). The exact int32 sums come
// from mixrt_ukernel_conv2d_s8s8s32 on the portable path (exactly tested by
// ukernel_conv_s8_test.cpp), and `sums` must hold them after every call
// whose output is another buffer. Every combination of f32 / int8 output
// (output zero points 0, 5, -3, 127 with qmin -128 and -127), bias and relu
// runs on shapes that cross the kernel's blocks: K = C*KH*KW of 8, 9, 27,
// 144, 256 and 576 (below, at and above the 256-k block), planes below, at and
// across the 128-position block and the larger blocks of a small K (up to
// 512), F of 1, 5, 17, 33 and 64, strides 2, padding, two images, rows whose
// lengths are no multiple of 8 or 16 (the vector rows' tails); input zero
// points 0 and not, weight zero points none, one or per filter
// (MIXRT_UKERNEL_A_PER_ROW). Tiny scales give subnormal y and -0 (relu'd to
// +0). The output may be `sums` (f32): the same bits. Huge scales make some
// y infinite (by the product or by the bias): the return is the row-major
// index of the first, the smallest over blocks and threads (1, 2, 3), every
// output still written. The words after the output and after the sums stay
// untouched; refused arguments return -2 and write nothing; an empty output
// returns -1 with NULL pointers.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mixrt::test;

namespace {

/// The weight's zero points: none, one for every filter, or one per filter.
enum class WeightZp { none, one, perFilter };

constexpr size_t kGuards = 16;
constexpr int32_t kGuard = 0x5a5a5a5a;
constexpr int8_t kGuardByte = 0x5a;

/// A float in [lo, hi) from the generator's bits (no distribution: the same
/// values under every standard library).
float uniformFloat(std::mt19937 &rng, float lo, float hi) {
  return lo + (hi - lo) * (static_cast<float>(rng() >> 8) * 0x1p-24f);
}

/// What the epilogue does with y: f32 or int8, bias, relu, the quantize.
struct Epilogue {
  bool outS8 = false, bias = false, relu = false;
  int32_t zp = 0, qmin = -128;
};

/// A convolution's int8 data and the rescale's scales and bias.
struct Problem {
  ConvShape s;
  std::vector<int8_t> in, w;
  std::vector<int32_t> zw;
  int32_t zx = 0;
  float xscale = 1.0f, oscale = 1.0f;
  std::vector<float> wscales, bias;

  Problem(const ConvShape &shape, int32_t inputZp, WeightZp wzp,
          std::mt19937 &rng)
      : s(shape), zx(inputZp) {
    in.resize(static_cast<size_t>(s.n * s.c * s.h() * s.w()));
    w.resize(static_cast<size_t>(s.f * s.k()));
    for (int8_t &v : in)
      v = static_cast<int8_t>(rng());
    for (int8_t &v : w)
      v = static_cast<int8_t>(rng());
    if (wzp == WeightZp::one)
      zw = {-5};
    else if (wzp == WeightZp::perFilter)
      for (int64_t f = 0; f < s.f; ++f)
        zw.push_back(static_cast<int8_t>(rng()));
    wscales.resize(static_cast<size_t>(s.f));
    bias.resize(static_cast<size_t>(s.f));
  }
  int64_t plane() const { return s.oh * s.ow; }
  int64_t filterOf(size_t i) const {
    return static_cast<int64_t>(i) / plane() % s.f;
  }
  uint32_t flags(const Epilogue &e) const {
    return (zw.size() > 1 ? uint32_t{MIXRT_UKERNEL_A_PER_ROW} : 0u) |
           (e.relu ? uint32_t{MIXRT_UKERNEL_RELU} : 0u) |
           (e.outS8 ? uint32_t{MIXRT_UKERNEL_OUT_S8} : 0u);
  }
};

int64_t run(const Problem &p, const Epilogue &e, int32_t *sums, void *out) {
  const ConvShape &s = p.s;
  return mixrt_ukernel_conv2d_s8_rescale(
      s.n, s.c, s.h(), s.w(), p.in.empty() ? nullptr : p.in.data(), p.zx, s.f,
      s.kh, s.kw, p.w.empty() ? nullptr : p.w.data(),
      p.zw.empty() ? nullptr : p.zw.data(), s.sh, s.sw, s.dh, s.dw, s.pt, s.pl,
      s.pb, s.pr, s.oh, s.ow, sums, p.xscale, p.wscales.data(),
      e.bias ? p.bias.data() : nullptr, p.oscale, e.zp, e.qmin, out,
      p.flags(e));
}

/// The exact sums: mixrt_ukernel_conv2d_s8s8s32 on the portable path.
std::vector<int32_t> exactSums(const Problem &p) {
  IsaScope scope(MIXRT_UKERNEL_ISA_PORTABLE);
  const ConvShape &s = p.s;
  std::vector<int32_t> sums(static_cast<size_t>(s.outputs()));
  REQUIRE(mixrt_ukernel_conv2d_s8s8s32(
              s.n, s.c, s.h(), s.w(), p.in.empty() ? nullptr : p.in.data(),
              p.zx, s.f, s.kh, s.kw, p.w.empty() ? nullptr : p.w.data(),
              p.zw.empty() ? nullptr : p.zw.data(), s.sh, s.sw, s.dh, s.dw,
              s.pt, s.pl, s.pb, s.pr, s.oh, s.ow, sums.data(),
              p.zw.size() > 1 ? uint32_t{MIXRT_UKERNEL_A_PER_ROW} : 0u) ==
          MIXRT_STATUS_OK);
  return sums;
}

/// y before the bias and the relu.
float scaled(const Problem &p, int32_t sum, int64_t f) {
  return static_cast<float>(
      (static_cast<double>(p.xscale) *
       static_cast<double>(p.wscales[static_cast<size_t>(f)])) *
      static_cast<double>(sum));
}

/// mixrt_ukernel_quantize_f32_s8's contract on one value.
int8_t quantizeRef(float y, float scale, int32_t zp, int32_t qmin) {
  const float r = std::nearbyint(y / scale) + static_cast<float>(zp);
  if (std::isnan(r))
    return static_cast<int8_t>(zp);
  return static_cast<int8_t>(
      std::min(std::max(r, static_cast<float>(qmin)), 127.0f));
}

/// The reference outputs of `e` and the index of the first infinite y.
struct Expected {
  std::vector<float> y;
  std::vector<int8_t> q;
  int64_t first = -1;
  size_t posInf = 0, negInf = 0;
};

Expected expected(const Problem &p, const Epilogue &e,
                  const std::vector<int32_t> &sums) {
  Expected x;
  x.y.resize(sums.size());
  if (e.outS8)
    x.q.resize(sums.size());
  for (size_t i = 0; i < sums.size(); ++i) {
    const int64_t f = p.filterOf(i);
    float y = scaled(p, sums[i], f);
    if (e.bias)
      y = y + p.bias[static_cast<size_t>(f)];
    if (std::isinf(y)) {
      if (x.first < 0)
        x.first = static_cast<int64_t>(i);
      ++(y > 0 ? x.posInf : x.negInf);
    }
    if (e.relu)
      y = y > 0.0f ? y : 0.0f;
    x.y[i] = y;
    if (e.outS8)
      x.q[i] = quantizeRef(y, p.oscale, e.zp, e.qmin);
  }
  return x;
}

/// Scales and a bias for ordinary values: ws[f] in [2^-9, 2^-6), the bias
/// up to half the filter's largest |y| either way, the output scale so
/// that the largest |y| quantizes to about 110 (the zero points and the
/// bias take some beyond int8: clamped).
void ordinaryScales(Problem &p, const std::vector<int32_t> &sums,
                    std::mt19937 &rng) {
  p.xscale = 0.0123f;
  std::vector<double> top(static_cast<size_t>(p.s.f), 1.0);
  for (size_t i = 0; i < sums.size(); ++i) {
    double &t = top[static_cast<size_t>(p.filterOf(i))];
    t = std::max(t, std::fabs(static_cast<double>(sums[i])));
  }
  double largest = 0;
  for (int64_t f = 0; f < p.s.f; ++f) {
    const size_t i = static_cast<size_t>(f);
    p.wscales[i] = uniformFloat(rng, 0x1p-9f, 0x1p-6f);
    const double yTop = p.xscale * static_cast<double>(p.wscales[i]) * top[i];
    p.bias[i] = static_cast<float>(uniformFloat(rng, -0.5f, 0.5f) * yTop);
    largest = std::max(largest, yTop);
  }
  p.oscale = static_cast<float>(largest / 110);
}

/// Every epilogue: f32 and int8 (zero points 0, 5, -3, 127; qmin -128 and
/// -127), with and without bias and relu.
std::vector<Epilogue> allEpilogues() {
  std::vector<Epilogue> all;
  for (bool bias : {false, true})
    for (bool relu : {false, true}) {
      all.push_back({false, bias, relu, 0, -128});
      for (int32_t zp : {0, 5, -3, 127})
        all.push_back(
            {true, bias, relu, zp, zp == 0 || zp == -3 ? -128 : -127});
    }
  return all;
}

/// The label of an epilogue for INFO.
std::string describe(const Epilogue &e) {
  std::string d = e.outS8 ? "int8 (zero point " + std::to_string(e.zp) +
                                ", qmin " + std::to_string(e.qmin) + ")"
                          : std::string("f32");
  return d + (e.bias ? " bias" : "") + (e.relu ? " relu" : "");
}

/// Runs `e` on the current path into separate buffers (guard words after
/// each) and checks the output, the sums, the guards and the return.
void checkRun(const Problem &p, const Epilogue &e,
              const std::vector<int32_t> &want, const Expected &x) {
  INFO(describe(e));
  std::vector<int32_t> sums(want.size() + kGuards, kGuard);
  int64_t got;
  if (e.outS8) {
    std::vector<int8_t> out(want.size() + kGuards, kGuardByte);
    got = run(p, e, sums.data(), out.data());
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (out[i] != x.q[i] && wrong++ == 0)
        first = i;
    INFO(wrong << " wrong int8 outputs, the first at " << first << ": "
               << (wrong ? int{out[first]} : 0) << " for "
               << (wrong ? int{x.q[first]} : 0) << " (y "
               << (wrong ? x.y[first] : 0.0f) << ")");
    CHECK(wrong == 0);
    for (size_t i = want.size(); i < out.size(); ++i)
      CHECK(out[i] == kGuardByte);
  } else {
    std::vector<float> out(want.size() + kGuards, f32FromBits(kSentinel));
    got = run(p, e, sums.data(), out.data());
    checkFloatsAndGuards(x.y, out);
  }
  CHECK(got == x.first);
  size_t wrongSums = 0;
  for (size_t i = 0; i < want.size(); ++i)
    wrongSums += sums[i] != want[i];
  CHECK(wrongSums == 0);
  for (size_t i = want.size(); i < sums.size(); ++i)
    CHECK(sums[i] == kGuard);
}

/// The same with `output` == `sums` (f32): y over the sums, the same bits.
void checkInPlace(const Problem &p, const Epilogue &e,
                  const std::vector<int32_t> &want, const Expected &x) {
  INFO(describe(e) << " in place");
  std::vector<int32_t> buf(want.size() + kGuards,
                           static_cast<int32_t>(kSentinel));
  CHECK(run(p, e, buf.data(), buf.data()) == x.first);
  std::vector<float> out(buf.size());
  std::memcpy(out.data(), buf.data(), buf.size() * sizeof(float));
  checkFloatsAndGuards(x.y, out);
}

std::string describe(const ConvShape &s) {
  std::ostringstream o;
  o << "N " << s.n << " C " << s.c << " F " << s.f << " out " << s.oh << "x"
    << s.ow << " window " << s.kh << "x" << s.kw << " (K " << s.k()
    << ") stride " << s.sh << "," << s.sw << " dilation " << s.dh << "," << s.dw
    << " padding " << s.pt << "," << s.pl << "," << s.pb << "," << s.pr;
  return o.str();
}

/// mixrt_set_num_threads(n) for a scope, then 1 thread (the default).
class ThreadsScope {
public:
  explicit ThreadsScope(int32_t n) {
    REQUIRE(mixrt_set_num_threads(n) == MIXRT_STATUS_OK);
  }
  ~ThreadsScope() { (void)mixrt_set_num_threads(1); }
};

/// Every epilogue on every path (separate buffers; f32 also in place).
void checkShape(const ConvShape &s, int32_t inputZp, WeightZp wzp,
                std::mt19937 &rng) {
  INFO(describe(s) << " zx " << inputZp << " zw " << static_cast<int>(wzp));
  Problem p(s, inputZp, wzp, rng);
  const std::vector<int32_t> want = exactSums(p);
  ordinaryScales(p, want, rng);
  const std::vector<Epilogue> epilogues = allEpilogues();
  std::vector<Expected> xs;
  for (const Epilogue &e : epilogues) {
    xs.push_back(expected(p, e, want));
    REQUIRE(xs.back().first == -1);
  }
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    for (size_t v = 0; v < epilogues.size(); ++v) {
      checkRun(p, epilogues[v], want, xs[v]);
      if (!epilogues[v].outS8)
        checkInPlace(p, epilogues[v], want, xs[v]);
    }
  }
}

} // namespace

TEST_CASE("ukernel.conv2d_s8_rescale equals the reference on every path",
          "[ukernel][conv][s8][conv_s8_rescale]") {
  std::mt19937 rng(73);
  // K = 27 (a first layer): blocks of 512 positions; 529 = 512 + 17 and
  // 100 (tails of 1 and 4 lanes), stride 2, F of 17 and 1, two images.
  checkShape(ConvShape{2, 3, 17, 23, 23, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 1),
             0, WeightZp::none, rng);
  checkShape(ConvShape{1, 3, 1, 10, 10, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1),
             -7, WeightZp::one, rng);
  // K = 9: 930 = 512 + 418 positions (418 = 26 x 16 + 2).
  checkShape(ConvShape{2, 1, 5, 30, 31, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 9,
             WeightZp::perFilter, rng);
  // K = 256, one k block: 128 positions (a whole block), 143 = 128 + 15 and
  // 152 = 128 + 24 (a multiple of 8, not of 16).
  checkShape(ConvShape{2, 256, 33, 8, 16, 1, 1, 1, 1, 1, 1}, 0,
             WeightZp::perFilter, rng);
  checkShape(ConvShape{1, 64, 17, 13, 11, 2, 2, 1, 1, 1, 1}, 3, WeightZp::one,
             rng);
  checkShape(ConvShape{1, 64, 5, 8, 19, 2, 2, 1, 1, 1, 1}.padded(0, 1, 0, 0),
             -128, WeightZp::none, rng);
  // K = 576 (two k blocks and a part): 81 positions, F = 64; 7 x 6 of
  // stride 2 with padding, F = 33.
  checkShape(ConvShape{1, 64, 64, 9, 9, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1), 0,
             WeightZp::perFilter, rng);
  checkShape(ConvShape{2, 64, 33, 7, 6, 3, 3, 2, 2, 1, 1}.padded(1, 1, 1, 0),
             127, WeightZp::one, rng);
  // 1x1 stride 1 (read in place): 420 positions of K = 8 (one block).
  checkShape(ConvShape{2, 8, 17, 20, 21, 1, 1, 1, 1, 1, 1}, 5, WeightZp::none,
             rng);
}

// (float) of a product below 2^-126: subnormal y, and -0 for a negative sum
// below half the smallest subnormal (relu'd to +0); a subnormal bias; an
// int8 output of a subnormal scale.
TEST_CASE("ukernel.conv2d_s8_rescale rounds subnormal and zero y exactly",
          "[ukernel][conv][s8][conv_s8_rescale]") {
  std::mt19937 rng(79);
  const ConvShape s =
      ConvShape{2, 3, 17, 11, 13, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1);
  Problem p(s, 0, WeightZp::perFilter, rng);
  const std::vector<int32_t> want = exactSums(p);
  p.xscale = 1e-30f;
  for (size_t f = 0; f < p.wscales.size(); ++f) {
    // s = 1e-30 x ws from 2^-172 to 2^-151: y from +-0 (every sum of the
    // first filters, the small ones of the others) to subnormals of about
    // 2^-135.
    p.wscales[f] = std::ldexp(uniformFloat(rng, 1.0f, 2.0f),
                              -72 + 4 * static_cast<int>(f % 6));
    p.bias[f] = f % 3 == 0 ? 0.0f : uniformFloat(rng, -1e-40f, 1e-40f);
  }
  p.oscale = 1e-41f;
  size_t negZero = 0, subnormal = 0;
  const Expected plain = expected(p, {}, want);
  for (float y : plain.y) {
    negZero += bitsOf(y) == 0x80000000u;
    subnormal += std::fpclassify(y) == FP_SUBNORMAL;
  }
  INFO(negZero << " -0, " << subnormal << " subnormal of " << want.size());
  REQUIRE(negZero > 10);
  REQUIRE(subnormal > want.size() / 4);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    for (const Epilogue &e : allEpilogues()) {
      const Expected x = expected(p, e, want);
      checkRun(p, e, want, x);
      if (!e.outS8)
        checkInPlace(p, e, want, x);
    }
  }
}

// input_scale 1e30: filter g's scale makes only its largest |sums| overflow
// (within 1.4% of the largest, which lies in the last quarter of image 0's
// plane: a later block); the last filter's makes a third of its y
// infinite, both signs (in block 0 too, at larger indices: the smallest
// index, not the first found, is returned); filter 1's y reach 1e38, and
// its bias of 3e38 makes the positive ones infinite (only with the bias:
// the index after the bias). 575 positions (the blocks of K = 144 are 224
// positions today: 224 + 224 + 127, a tail of 15 lanes) in two images, 2.8
// million multiply-adds: split over 2 and 3 threads.
TEST_CASE("ukernel.conv2d_s8_rescale reports the first infinite y",
          "[ukernel][conv][s8][conv_s8_rescale]") {
  std::mt19937 rng(83);
  const ConvShape s =
      ConvShape{2, 16, 17, 23, 25, 3, 3, 1, 1, 1, 1}.padded(1, 1, 1, 1);
  Problem p(s, -2, WeightZp::perFilter, rng);
  const std::vector<int32_t> want = exactSums(p);
  const int64_t plane = p.plane();
  auto sumAt = [&](int64_t n, int64_t f, int64_t i) {
    return std::fabs(static_cast<double>(
        want[static_cast<size_t>((n * s.f + f) * plane + i)]));
  };
  auto largest = [&](int64_t f, int64_t n0, int64_t n1, int64_t *at) {
    double m = 0;
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t i = 0; i < plane; ++i)
        if (sumAt(n, f, i) > m) {
          m = sumAt(n, f, i);
          if (at)
            *at = i;
        }
    return m;
  };
  p.xscale = 1e30f;
  for (size_t f = 0; f < p.wscales.size(); ++f) {
    p.wscales[f] = uniformFloat(rng, 0.5f, 2.0f);
    p.bias[f] = uniformFloat(rng, -1e37f, 1e37f);
  }
  // The first filter from 3 whose largest |sum| over both images lies in
  // the last quarter of image 0's plane.
  int64_t g = -1;
  for (int64_t f = 3; f + 1 < s.f && g < 0; ++f) {
    int64_t at = -1, unused = -1;
    const double m0 = largest(f, 0, 1, &at);
    if (at >= plane * 3 / 4 && m0 > largest(f, 1, 2, &unused))
      g = f;
  }
  REQUIRE(g >= 0);
  p.wscales[static_cast<size_t>(g)] =
      static_cast<float>(3.45e8 / largest(g, 0, 2, nullptr));
  // The last filter: a third of its |sums| above the threshold.
  std::vector<double> last;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t i = 0; i < plane; ++i)
      last.push_back(sumAt(n, s.f - 1, i));
  std::sort(last.begin(), last.end());
  p.wscales.back() = static_cast<float>(3.45e8 / last[last.size() * 2 / 3]);
  p.wscales[1] = static_cast<float>(1e8 / largest(1, 0, 2, nullptr));
  p.bias[1] = 3e38f;
  p.oscale = 0.5f;
  std::vector<Epilogue> epilogues;
  for (bool bias : {false, true})
    for (bool relu : {false, true}) {
      epilogues.push_back({false, bias, relu, 0, -128});
      epilogues.push_back({true, bias, relu, relu ? 5 : -3, -127});
    }
  epilogues.push_back({true, false, false, 127, -128});
  std::vector<Expected> xs;
  for (const Epilogue &e : epilogues) {
    INFO(describe(e));
    xs.push_back(expected(p, e, want));
    const Expected &x = xs.back();
    // The first infinite y is filter g's in image 0, in the last quarter
    // of the plane (filter 1's with the bias); both signs occur.
    REQUIRE(x.first >= 0);
    INFO("the first infinite y at " << x.first);
    if (!e.bias)
      REQUIRE(x.first % plane >= plane * 3 / 4);
    REQUIRE(x.first / plane == (e.bias ? 1 : g));
    REQUIRE(x.posInf > 0);
    REQUIRE(x.negInf > 0);
  }
  for (int32_t threads : {1, 2, 3}) {
    INFO(threads << " threads");
    ThreadsScope pool(threads);
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      INFO("path " << mixrt_ukernel_isa_name(isa));
      for (size_t v = 0; v < epilogues.size(); ++v) {
        checkRun(p, epilogues[v], want, xs[v]);
        if (!epilogues[v].outS8 && threads == 2)
          checkInPlace(p, epilogues[v], want, xs[v]);
      }
    }
  }
  // The output scale +Inf (allowed): finite y quantize to the zero point,
  // an infinite one (Inf / Inf: NaN) too.
  p.oscale = std::numeric_limits<float>::infinity();
  const Epilogue e{true, false, false, -3, -128};
  const Expected x = expected(p, e, want);
  REQUIRE(
      std::all_of(x.q.begin(), x.q.end(), [](int8_t q) { return q == -3; }));
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    checkRun(p, e, want, x);
  }
}

TEST_CASE("ukernel.conv2d_s8_rescale refuses bad arguments, writing nothing",
          "[ukernel][conv][s8][conv_s8_rescale]") {
  // 1 image, 2 channels of 5 x 6, 3 filters of 3x3: output 3 x 3 x 4.
  std::vector<int8_t> in(60, 1), w(54, 2);
  std::vector<int32_t> zw = {0, 1, -128};
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Args {
    int64_t n = 1, c = 2, h = 5, wd = 6, f = 3, kh = 3, sh = 1, dh = 1, pad = 0,
            oh = 3, ow = 4;
    const int8_t *x, *wt;
    int32_t zx = 0;
    const int32_t *zw = nullptr;
    float xscale = 0.5f;
    std::vector<float> wscales = {1.0f, 0.25f, 2.0f},
                       bias = {1.0f, -1.0f, 0.0f};
    bool useBias = true, noWscales = false, noSums = false, noOut = false;
    float oscale = 0.125f;
    int32_t zp = 0, qmin = -128;
    uint32_t flags = 0;
  };
  const Args ok{};
  auto base = [&] {
    Args a = ok;
    a.x = in.data();
    a.wt = w.data();
    return a;
  };
  // Runs `a` with the outputs filled with guards; true if they stay so.
  auto call = [&](const Args &a, int64_t *ret) {
    std::vector<int32_t> sums(36 + kGuards, kGuard);
    std::vector<int32_t> out(36 + kGuards, kGuard); // f32 or int8 bytes
    *ret = mixrt_ukernel_conv2d_s8_rescale(
        a.n, a.c, a.h, a.wd, a.x, a.zx, a.f, a.kh, a.kh, a.wt, a.zw, a.sh, a.sh,
        a.dh, a.dh, a.pad, a.pad, a.pad, a.pad, a.oh, a.ow,
        a.noSums ? nullptr : sums.data(), a.xscale,
        a.noWscales ? nullptr : a.wscales.data(),
        a.useBias ? a.bias.data() : nullptr, a.oscale, a.zp, a.qmin,
        a.noOut ? nullptr : out.data(), a.flags);
    return std::count(sums.begin(), sums.end(), kGuard) ==
               static_cast<std::ptrdiff_t>(sums.size()) &&
           std::count(out.begin(), out.end(), kGuard) ==
               static_cast<std::ptrdiff_t>(out.size());
  };
  auto refused = [&](const Args &a) {
    int64_t ret = 0;
    const bool untouched = call(a, &ret);
    CHECK(ret == -2);
    CHECK(untouched);
  };
  const uint32_t outS8 = MIXRT_UKERNEL_OUT_S8;
  // The valid call: every sum 2 x 9 x (2 x 1) = 36, y = 0.5 x ws x 36 + b.
  {
    Args a = base();
    int64_t ret = 0;
    std::vector<int32_t> sums(36, 0);
    std::vector<float> out(36, 0.0f);
    ret = mixrt_ukernel_conv2d_s8_rescale(
        a.n, a.c, a.h, a.wd, a.x, a.zx, a.f, a.kh, a.kh, a.wt, a.zw, a.sh, a.sh,
        a.dh, a.dh, a.pad, a.pad, a.pad, a.pad, a.oh, a.ow, sums.data(),
        a.xscale, a.wscales.data(), a.bias.data(), a.oscale, a.zp, a.qmin,
        out.data(), a.flags);
    CHECK(ret == -1);
    CHECK(sums[0] == 36);
    CHECK(sums[35] == 36);
    CHECK(out[0] == 19.0f);
    CHECK(out[12] == 3.5f);
    CHECK(out[35] == 36.0f);
    CHECK_FALSE(call(a, &ret));
    CHECK(ret == -1);
    a.flags = outS8 | MIXRT_UKERNEL_RELU;
    CHECK_FALSE(call(a, &ret));
    CHECK(ret == -1);
  }
  // The output's scale, zero point and qmin matter only with OUT_S8.
  {
    Args a = base();
    a.oscale = nan;
    a.zp = 1000;
    a.qmin = 3;
    int64_t ret = 0;
    CHECK_FALSE(call(a, &ret));
    CHECK(ret == -1);
  }
  for (uint32_t flags : {uint32_t{1} << 3, uint32_t{1} << 31}) {
    Args a = base();
    a.flags = flags;
    refused(a);
    a.flags = flags | outS8;
    refused(a);
  }
  for (float v : {0.0f, -0.0f, -1.0f, nan, inf, -inf}) {
    INFO("scale " << v);
    for (uint32_t flags : {0u, outS8}) {
      Args a = base();
      a.flags = flags;
      a.xscale = v;
      refused(a);
      a = base();
      a.flags = flags;
      a.wscales[2] = v;
      refused(a);
    }
  }
  for (float v : {nan, inf, -inf}) {
    INFO("bias " << v);
    Args a = base();
    a.bias[1] = v;
    refused(a);
    a.flags = outS8;
    refused(a);
    // Not read without a bias.
    a.useBias = false;
    int64_t ret = 0;
    CHECK_FALSE(call(a, &ret));
    CHECK(ret == -1);
  }
  for (float v : {0.0f, -0.0f, -1.0f, nan, -inf}) {
    INFO("output scale " << v);
    Args a = base();
    a.flags = outS8;
    a.oscale = v;
    refused(a);
  }
  for (int32_t zp : {128, -129, 1000}) {
    Args a = base();
    a.flags = outS8;
    a.zp = zp;
    refused(a);
  }
  for (int32_t qmin : {-126, -129, 0, 127}) {
    Args a = base();
    a.flags = outS8;
    a.qmin = qmin;
    refused(a);
  }
  for (uint32_t flags : {0u, outS8}) {
    Args a = base();
    a.flags = flags;
    a.noSums = true;
    refused(a);
    a = base();
    a.flags = flags;
    a.noOut = true;
    refused(a);
    a = base();
    a.flags = flags;
    a.noWscales = true;
    refused(a);
  }
  // What mixrt_ukernel_conv2d_s8s8s32 refuses.
  {
    const std::vector<int32_t> badZw = {0, 128, 0};
    Args a = base();
    a.sh = 0;
    refused(a);
    a = base();
    a.dh = 0;
    refused(a);
    a = base();
    a.kh = 0;
    refused(a);
    a = base();
    a.n = -1;
    refused(a);
    a = base();
    a.pad = -1;
    refused(a);
    a = base();
    a.oh = 4; // would read input row 5 of 0..4
    refused(a);
    a = base();
    a.zx = 128;
    refused(a);
    a = base();
    a.zw = badZw.data();
    a.flags = MIXRT_UKERNEL_A_PER_ROW;
    refused(a);
    a = base();
    a.x = nullptr;
    refused(a);
    a = base();
    a.wt = nullptr;
    refused(a);
    a = base();
    a.c = int64_t{1} << 61;
    refused(a);
    // Per filter zero points accepted.
    a = base();
    a.zw = zw.data();
    a.flags = MIXRT_UKERNEL_A_PER_ROW | outS8;
    int64_t ret = 0;
    CHECK_FALSE(call(a, &ret));
    CHECK(ret == -1);
  }
  // An int8 output in the bytes of the sums (its writes would overwrite sums
  // of blocks not read yet): refused, nothing written; an f32 output in
  // exactly their bytes is allowed.
  {
    Args a = base();
    a.flags = outS8;
    for (std::ptrdiff_t shift : {0, 4, 140, -20}) {
      INFO("int8 output at the sums + " << shift << " bytes");
      std::vector<int32_t> buffer(64 + kGuards, kGuard);
      int32_t *sums = buffer.data() + 8;
      int8_t *out = reinterpret_cast<int8_t *>(sums) + shift;
      CHECK(mixrt_ukernel_conv2d_s8_rescale(
                a.n, a.c, a.h, a.wd, a.x, a.zx, a.f, a.kh, a.kh, a.wt, a.zw,
                a.sh, a.sh, a.dh, a.dh, a.pad, a.pad, a.pad, a.pad, a.oh, a.ow,
                sums, a.xscale, a.wscales.data(), a.bias.data(), a.oscale, a.zp,
                a.qmin, out, a.flags) == -2);
      CHECK(std::count(buffer.begin(), buffer.end(), kGuard) ==
            static_cast<std::ptrdiff_t>(buffer.size()));
    }
    // Adjacent, not overlapping: accepted.
    std::vector<int32_t> buffer(36 + 9 + kGuards, kGuard);
    CHECK(mixrt_ukernel_conv2d_s8_rescale(
              a.n, a.c, a.h, a.wd, a.x, a.zx, a.f, a.kh, a.kh, a.wt, a.zw, a.sh,
              a.sh, a.dh, a.dh, a.pad, a.pad, a.pad, a.pad, a.oh, a.ow,
              buffer.data(), a.xscale, a.wscales.data(), a.bias.data(),
              a.oscale, a.zp, a.qmin,
              reinterpret_cast<int8_t *>(buffer.data() + 36), a.flags) == -1);
    CHECK(buffer[0] == 36);
  }
  // An empty output: -1, nothing read or written, NULL pointers allowed.
  for (uint32_t flags : {0u, outS8}) {
    for (int64_t which : {0, 1}) {
      INFO((which ? "N = 0" : "F = 0"));
      const int64_t n = which ? 0 : 1, f = which ? 3 : 0;
      CHECK(mixrt_ukernel_conv2d_s8_rescale(
                n, 2, 5, 6, nullptr, 0, f, 3, 3, nullptr, nullptr, 1, 1, 1, 1,
                0, 0, 0, 0, 3, 4, nullptr, 0.5f, nullptr, nullptr, 0.25f, 0,
                -128, nullptr, flags) == -1);
      // The scale is still checked.
      CHECK(mixrt_ukernel_conv2d_s8_rescale(
                n, 2, 5, 6, nullptr, 0, f, 3, 3, nullptr, nullptr, 1, 1, 1, 1,
                0, 0, 0, 0, 3, 4, nullptr, 0.0f, nullptr, nullptr, 0.25f, 0,
                -128, nullptr, flags) == -2);
    }
  }
}
