//===- MathExecutionTest.cpp - compiled elementwise math vs the reference -===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiles every elementwise math layer (sigmoid ... reciprocal, floor,
// ceil, round, sign, sin ... atanh, sub, div, pow, maximum, minimum) through
// the whole pipeline in an f32 and in an f16 network, runs it on
// adversarial inputs (signed zeros, tiny and huge values, the f16 overflow
// threshold of exp, ties of round, infinities, NaN) and compares it with
// the f64 interpreter on the same (f16-rounded) inputs:
//
// - ops whose f32 result is one correctly rounded IEEE operation (abs, neg,
//   maximum, minimum, clip, sub, div, sqrt, reciprocal; floor, ceil, round
//   and sign, whose results are exact) must match the reference rounded to
//   the result type bit for bit (f64 then f32 rounding of these is
//   innocuous: 53 >= 2 * 24 + 2);
// - the others call libm (logf, powf, sinf ... atanhf), use an
//   approximation (f32 erf, tanh, exp: mix-approximate-math) or chain a few
//   roundings: in f32 they must agree within 2^-20 relative
//   plus 2^-22 absolute (a few f32 ulps; glibc's float functions are within
//   one or two; the absolute part covers exp(x) - 1 of elu near 0, whose
//   f32 cancellation error is one ulp of 1 as in ONNX's own float32
//   reference); in f16 within one f16 ulp of the rounded reference (the
//   f32 result is within a few f32 ulps, and one rounding to f16 can move
//   it across at most one f16 rounding boundary);
// - NaN must come out where the reference has NaN, and nowhere else; a zero
//   result has the reference's sign.
//
// The f16 runs also check the one check these ops add: a finite result
// that rounds to infinity in f16 is reported (exp(12) = 162755 > 65504),
// and nothing is reported without checks.
//
//===----------------------------------------------------------------------===//

#include "ExecutionTestUtil.h"
#include "JitUtil.h"

#include "mixrt/mixrt.h"
#include "llvm/ADT/APFloat.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

struct MathCase {
  const char *op;
  int arity;
  const char *attrs; // "" or " {alpha = ...}"
  bool exact;        // one correctly rounded operation in f32
};

const MathCase kCases[] = {
    {"sigmoid", 1, "", false},
    {"tanh", 1, "", false},
    {"hard_sigmoid", 1, " {alpha = 0.25 : f64, beta = 0.375 : f64}", false},
    {"hard_swish", 1, "", false},
    {"silu", 1, "", false},
    {"leaky_relu", 1, " {alpha = 0.125 : f64}", true},
    {"elu", 1, " {alpha = 1.5 : f64}", false},
    {"clip", 1, " {min = -2.5 : f64, max = 6.0 : f64}", true},
    {"exp", 1, "", false},
    {"log", 1, "", false},
    {"sqrt", 1, "", true},
    {"rsqrt", 1, "", false},
    {"abs", 1, "", true},
    {"neg", 1, "", true},
    {"erf", 1, "", false},
    {"reciprocal", 1, "", true},
    {"floor", 1, "", true},
    {"ceil", 1, "", true},
    {"round", 1, "", true},
    {"sign", 1, "", true},
    {"sin", 1, "", false},
    {"cos", 1, "", false},
    {"tan", 1, "", false},
    {"asin", 1, "", false},
    {"acos", 1, "", false},
    {"atan", 1, "", false},
    {"sinh", 1, "", false},
    {"cosh", 1, "", false},
    {"asinh", 1, "", false},
    {"acosh", 1, "", false},
    {"atanh", 1, "", false},
    {"sub", 2, "", true},
    {"div", 2, "", true},
    {"pow", 2, "", false},
    {"maximum", 2, "", true},
    {"minimum", 2, "", true},
};

std::vector<float> adversarialInputs(bool f16) {
  std::vector<float> v = {
      0.0f,  -0.0f, 1.0f,   -1.0f,    0.5f,     2.0f,      3.0f,  -3.0f,  6.0f,
      -6.0f, 1e-3f, -1e-3f, 6e-8f,    10.0f,    11.0f,     12.0f, -12.0f, 0.1f,
      -0.7f, 4.5f,  -2.5f,  65504.0f, INFINITY, -INFINITY, NAN};
  if (!f16) {
    for (float x : {88.0f, -88.0f, 100.0f, -100.0f, 1e30f, -1e30f, 1e-40f})
      v.push_back(x);
  }
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  while (v.size() < 64)
    v.push_back(normal(rng));
  return v;
}

std::string model(const MathCase &c, const char *precision, int64_t n) {
  std::string t = "tensor<" + std::to_string(n) + "xf32>";
  std::string args = "%a: " + t, operands = "%a", types = t;
  if (c.arity == 2) {
    args += ", %b: " + t;
    operands += ", %b";
    types += ", " + t;
  }
  return std::string("mix.network @m precision(") + precision + ") (" + args +
         ") -> " + t + " {\n  %y = mix." + c.op + " " + operands + c.attrs +
         " : (" + types + ") -> " + t + "\n  mix.return %y : " + t + "\n}\n";
}

using Memref = StridedMemRefType<float, 1>;

/// Runs the compiled network once; returns the output and the check status.
std::vector<float> runCompiled(const std::string &source, int arity,
                               std::vector<float> a, std::vector<float> b,
                               bool checks, int32_t &status) {
  Jit jit;
  MixPipelineOptions options;
  options.checkedCasts = checks;
  auto engine = compile(jit.context, source, options);
  REQUIRE(engine);
  auto fn = engine->lookup("_mlir_ciface_m");
  REQUIRE(bool(fn));
  int64_t n = int64_t(a.size());
  std::vector<float> y(n, -7.0f);
  Memref in0 = view<float, 1>(a.data(), {n});
  Memref in1 = view<float, 1>(b.data(), {n});
  Memref out = view<float, 1>(y.data(), {n});
  mixrt_check_reset();
  if (arity == 1)
    reinterpret_cast<void (*)(Memref *, Memref *)>(*fn)(&in0, &out);
  else
    reinterpret_cast<void (*)(Memref *, Memref *, Memref *)>(*fn)(&in0, &in1,
                                                                  &out);
  status = mixrt_check_status();
  return y;
}

void compare(const MathCase &c, bool f16) {
  const llvm::fltSemantics &sem =
      f16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::IEEEsingle();
  std::vector<float> a = adversarialInputs(f16);
  // The second operand: the inputs in another order (every pair of
  // special values meets somewhere), pow gets small exponents.
  std::vector<float> b(a.rbegin(), a.rend());
  if (std::string(c.op) == "pow")
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = std::isfinite(b[i]) ? std::fmod(std::round(b[i] * 2) / 2, 4.0f)
                                 : b[i];
  int64_t n = int64_t(a.size());

  // The reference: the interpreter (f64) on inputs rounded as the f16
  // network rounds them, rounded once to the result type.
  std::vector<double> ra, rb;
  for (float x : a)
    ra.push_back(roundTo(x, sem));
  for (float x : b)
    rb.push_back(roundTo(x, sem));
  Model reference(model(c, "f32", n));
  std::vector<RefTensor> inputs = {tensor({n}, ra)};
  if (c.arity == 2)
    inputs.push_back(tensor({n}, rb));
  std::vector<double> expected = reference.ok(inputs)[0].data;

  int32_t status = 0;
  std::vector<float> got = runCompiled(model(c, f16 ? "f16" : "f32", n),
                                       c.arity, a, b, /*checks=*/false, status);
  CHECK(status == MIXRT_STATUS_OK);
  for (int64_t i = 0; i < n; ++i) {
    double want = expected[i];
    double r = roundTo(want, sem);
    INFO(c.op << (f16 ? " f16" : " f32") << " element " << i << ": a = " << a[i]
              << ", b = " << b[i] << ", got " << got[i] << ", reference "
              << want);
    if (std::isnan(want)) {
      CHECK(std::isnan(got[i]));
      continue;
    }
    REQUIRE_FALSE(std::isnan(got[i]));
    // Exact ops, and results beyond the format's range, bit for bit.
    if (c.exact || std::isinf(r)) {
      CHECK(double(got[i]) == r);
      if (r == 0)
        CHECK(std::signbit(got[i]) == std::signbit(r));
      continue;
    }
    // A zero keeps the reference's sign (erf(-0) = -0, which MLIR's erf
    // approximation alone gets wrong).
    if (want == 0)
      CHECK(std::signbit(got[i]) == std::signbit(want));
    double tolerance =
        f16 ? ulp(want, sem)
            : std::ldexp(std::fabs(want), -20) + std::ldexp(1.0, -22);
    CHECK(std::fabs(double(got[i]) - want) <= tolerance);
  }
}

} // namespace

TEST_CASE("compiled elementwise math matches the f64 reference in f32",
          "[exec][math]") {
  for (const MathCase &c : kCases) {
    SECTION(c.op) { compare(c, /*f16=*/false); }
  }
}

TEST_CASE("compiled elementwise math matches the f64 reference in f16",
          "[exec][math]") {
  for (const MathCase &c : kCases) {
    SECTION(c.op) { compare(c, /*f16=*/true); }
  }
}

TEST_CASE("a finite math result that overflows f16 is reported",
          "[exec][math]") {
  const MathCase exp = {"exp", 1, "", false};
  std::string source = model(exp, "f16", 4);
  std::vector<float> x = {1.0f, 12.0f, 13.0f, INFINITY};
  int32_t status = 0;
  std::vector<float> y = runCompiled(source, 1, x, x, /*checks=*/true, status);
  // IEEE results either way; the first overflow (element 1) is reported.
  CHECK(std::isinf(y[1]));
  CHECK(status == MIXRT_STATUS_OUT_OF_RANGE);
  std::string message = mixrt_last_error_message();
  INFO(message);
  CHECK(message.find("exp in f16 overflows at element 1 (value 162755)") !=
        std::string::npos);

  // exp(inf) = inf is not an overflow; without checks nothing is reported.
  std::vector<float> inf = {1.0f, 2.0f, 3.0f, INFINITY};
  runCompiled(source, 1, inf, inf, /*checks=*/true, status);
  CHECK(status == MIXRT_STATUS_OK);
  runCompiled(source, 1, x, x, /*checks=*/false, status);
  CHECK(status == MIXRT_STATUS_OK);

  // sigmoid's results lie in [0, 1]: no check is compiled at all.
  const MathCase sigmoid = {"sigmoid", 1, "", false};
  runCompiled(model(sigmoid, "f16", 4), 1, x, x, /*checks=*/true, status);
  CHECK(status == MIXRT_STATUS_OK);
}

namespace {

/// argmax / argmin of a 4 x 5 f32 input compiled at `precision` along
/// `axis` (keepdims false), the indices it returns.
std::vector<int64_t> runArg(const char *op, const char *precision, int64_t axis,
                            bool last, std::vector<float> input) {
  int64_t n = axis == 0 ? 5 : 4;
  std::string source =
      std::string("mix.network @m precision(") + precision +
      ") (%a: tensor<4x5xf32>) -> tensor<" + std::to_string(n) +
      "xi64> {\n  %y = mix." + op + " %a {axis = " + std::to_string(axis) +
      " : i64, keepdims = false, select_last_index = " +
      (last ? "true" : "false") + "} : (tensor<4x5xf32>) -> tensor<" +
      std::to_string(n) + "xi64>\n  mix.return %y : tensor<" +
      std::to_string(n) + "xi64>\n}\n";
  Jit jit;
  auto engine = compile(jit.context, source, MixPipelineOptions{});
  REQUIRE(engine);
  auto fn = engine->lookup("_mlir_ciface_m");
  REQUIRE(bool(fn));
  std::vector<int64_t> y(n, -7);
  auto in = view<float, 2>(input.data(), {4, 5});
  auto out = view<int64_t, 1>(y.data(), {n});
  reinterpret_cast<void (*)(StridedMemRefType<float, 2> *,
                            StridedMemRefType<int64_t, 1> *)>(*fn)(&in, &out);
  return y;
}

} // namespace

// The rows hold a tie (3, 3), NaNs, all -inf, and 1.0001 next to 1 (equal
// once rounded to f16: a tie at f16 only). numpy's rule: NaN is the
// extremum, its first (last) occurrence wins; ties go to the first (last).
TEST_CASE("compiled argmax and argmin: ties, NaN, -inf and the precision",
          "[exec][math]") {
  const float nan = NAN, inf = INFINITY;
  const std::vector<float> x = {1,    3,       3,    2,    0,    //
                                nan,  1,       nan,  5,    -1,   //
                                -inf, -inf,    -inf, -inf, -inf, //
                                2,    1.0001f, 1,    1,    7};
  using V = std::vector<int64_t>;
  CHECK(runArg("argmax", "f32", 1, false, x) == V{1, 0, 0, 4});
  CHECK(runArg("argmax", "f32", 1, true, x) == V{2, 2, 4, 4});
  CHECK(runArg("argmin", "f32", 1, false, x) == V{4, 0, 0, 2});
  CHECK(runArg("argmin", "f32", 1, true, x) == V{4, 2, 4, 3});
  // Along axis 0 (columns: 1 NaN -inf 2 | 3 1 -inf 1.0001 | ...).
  CHECK(runArg("argmax", "f32", 0, false, x) == V{1, 0, 1, 1, 3});
  CHECK(runArg("argmin", "f32", 0, true, x) == V{1, 2, 1, 2, 2});
  // In f16 1.0001 rounds to 1: row 3's minimum ties at index 1.
  CHECK(runArg("argmin", "f16", 1, false, x) == V{4, 0, 0, 1});
  CHECK(runArg("argmin", "f16", 1, true, x) == V{4, 2, 4, 3});

  // The interpreter agrees (f32).
  Model reference("mix.network @m precision(f32) (%a: tensor<4x5xf32>) -> "
                  "tensor<4xi64> {\n  %y = mix.argmin %a {axis = 1 : i64, "
                  "keepdims = false, select_last_index = true} : "
                  "(tensor<4x5xf32>) -> tensor<4xi64>\n  mix.return %y : "
                  "tensor<4xi64>\n}\n");
  std::vector<double> xd(x.begin(), x.end());
  CHECK(reference.ok({tensor({4, 5}, xd)})[0].data ==
        std::vector<double>{4, 2, 4, 3});
}
