//===- NormalizationExecutionTest.cpp - compiled norms vs the reference ---===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiles log_softmax (every axis), layer_norm over one and several
// trailing axes, instance_norm and group_norm with mixc (the object mixc
// emits, loaded by CompiledNetwork) in an f32 and an f16 network, and
// compares every output with the f64 interpreter.
//
// Inputs, gammas and betas are multiples of 1/8 in [-4, 4] (exact in f16,
// so both networks see the reference's inputs), and every group holds at
// most 128 elements, so the first sums (of x) are exact in f32 (multiples
// of 1/8 below 2^10) and the mean is one rounding. Tolerances, with
// u = 2^-24:
//
// - f32: |got - want| <= 2^-15 (1 + |want|). The variance sums n <= 128
//   rounded terms (relative error <= (n + 2) u < 2^-17), the square root
//   halves it, the centring, division and fma add a few u: the normalized
//   value is within 2^-17 relative (the data's variance is near 5, so the
//   mean's one rounding adds about u absolutely), and y = norm * gamma +
//   beta is within 2^-17 (|want| + |beta|) <= 2^-15 (1 + |want|) for
//   |beta| <= 4 (|norm * gamma| <= |want| + |beta|). For log_softmax, x -
//   max is exact, the sum of n <= 5 exp values (mix-approximate-math: within
//   5.5 ulps each) is within (n + 7) u relative, so log(sum) within that
//   absolutely, and the
//   last subtraction adds u |y|: far inside the same bound.
// - f16: the f32 computation rounded once to f16: within one f16 ulp of the
//   reference plus the f32 bound above (the f32 error can move the value
//   across one f16 rounding boundary; near 0, where f16 ulps are tiny, the
//   f32 bound dominates).
//
// The f16 networks are compiled without the policy, which refuses these
// layers below f32 (sensitive-op-precision). The f16 log_softmax also
// checks its one run-time check: a finite result
// beyond f16's range (|x - max| > 65504) is reported.
//
//===----------------------------------------------------------------------===//

#include "ExecutionTestUtil.h"
#include "JitUtil.h"

#include "compiler/CompiledNetwork.h"
#include "mixrt/mixrt.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

/// The elements `v[at...]` of `shape` as a nested dense literal.
std::string literal(const std::vector<float> &v, size_t &at,
                    llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return std::to_string(v[at++]);
  std::string s = "[";
  for (int64_t i = 0; i < shape[0]; ++i)
    s += (i ? ", " : "") + literal(v, at, shape.drop_front());
  return s + "]";
}

/// `%name = mix.weight dense<...> : tensor<...xf32>` of eighths of `shape`.
std::string weight(const std::string &name, std::vector<int64_t> shape,
                   unsigned seed) {
  std::vector<float> v = eighths(count(shape), seed);
  size_t at = 0;
  std::string type;
  for (int64_t d : shape)
    type += std::to_string(d) + "x";
  return "  %" + name + " = mix.weight dense<" + literal(v, at, shape) +
         "> : tensor<" + type + "f32>\n";
}

/// Compiles `source` with mixc, runs it on `input` and compares its output
/// with the interpreter's within the tolerances of the file comment.
void compareWithReference(const std::string &source,
                          const std::vector<int64_t> &shape,
                          const std::vector<float> &input, bool f16) {
  // The default policy refuses these layers below f32 (rule
  // sensitive-op-precision); the f16 runs check what `--no-policy` gives.
  ExecutionResult r = runBoth(source, {input}, /*verifyPolicy=*/!f16);
  REQUIRE(r.compiled.size() == 1);
  const std::vector<float> &out = r.compiled[0];
  const std::vector<double> &expected = r.reference[0].data;
  REQUIRE(out.size() == size_t(count(shape)));
  REQUIRE(expected.size() == out.size());
  const llvm::fltSemantics &sem =
      f16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::IEEEsingle();
  for (size_t i = 0; i < out.size(); ++i) {
    double want = expected[i];
    INFO("element " << i << ": got " << out[i] << ", reference " << want);
    REQUIRE(std::isfinite(want));
    double tolerance = std::ldexp(1.0 + std::fabs(want), -15);
    if (f16)
      tolerance += ulp(want, sem);
    CHECK(std::fabs(double(out[i]) - want) <= tolerance);
  }
}

std::string network(const char *precision, const std::string &type,
                    const std::string &body) {
  return std::string("mix.network @n precision(") + precision +
         ") (%x: " + type + ") -> " + type + " {\n" + body +
         "  mix.return %y : " + type + "\n}\n";
}

} // namespace

TEST_CASE("compiled log_softmax matches the reference on every axis",
          "[exec][norm]") {
  std::vector<int64_t> shape = {3, 4, 5};
  std::vector<float> x = eighths(60, 11);
  // A row with one dominant value: exp of the others underflows in f16.
  x[0] = 4.0f;
  for (const char *precision : {"f32", "f16"}) {
    for (int axis : {0, 1, 2, -1, -3}) {
      SECTION(std::string(precision) + " axis " + std::to_string(axis)) {
        compareWithReference(
            network(
                precision, "tensor<3x4x5xf32>",
                "  %y = mix.log_softmax %x {axis = " + std::to_string(axis) +
                    " : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>\n"),
            shape, x, std::string(precision) == "f16");
      }
    }
  }
}

TEST_CASE("compiled layer_norm matches the reference over trailing axes",
          "[exec][norm]") {
  std::vector<int64_t> shape = {2, 3, 4, 5};
  std::vector<float> x = eighths(120, 12);
  struct Case {
    int axis;
    std::vector<int64_t> paramShape;
  };
  for (const char *precision : {"f32", "f16"}) {
    for (const Case &c : {Case{-1, {5}}, Case{3, {5}}, Case{2, {4, 5}},
                          Case{-3, {3, 4, 5}}, Case{0, {2, 3, 4, 5}}}) {
      SECTION(std::string(precision) + " axis " + std::to_string(c.axis)) {
        std::string type = "tensor<";
        for (int64_t d : c.paramShape)
          type += std::to_string(d) + "x";
        type += "f32>";
        // axis 0: all 120 elements in one group.
        std::string body =
            weight("g", c.paramShape, 13) + weight("b", c.paramShape, 14) +
            "  %y = mix.layer_norm %x, %g, %b {axis = " +
            std::to_string(c.axis) + " : i64} : (tensor<2x3x4x5xf32>, " + type +
            ", " + type + ") -> tensor<2x3x4x5xf32>\n";
        compareWithReference(network(precision, "tensor<2x3x4x5xf32>", body),
                             shape, x, std::string(precision) == "f16");
      }
    }
  }
}

TEST_CASE("compiled instance_norm and group_norm match the reference",
          "[exec][norm]") {
  std::vector<int64_t> shape = {2, 6, 3, 4};
  std::vector<float> x = eighths(144, 15);
  // A constant slice (variance 0): the result is beta there.
  for (int i = 0; i < 12; ++i)
    x[12 + i] = 1.25f;
  std::string params = weight("s", {6}, 16) + weight("b", {6}, 17);
  const std::string types = " : (tensor<2x6x3x4xf32>, tensor<6xf32>, "
                            "tensor<6xf32>) -> tensor<2x6x3x4xf32>\n";
  for (const char *precision : {"f32", "f16"}) {
    bool f16 = std::string(precision) == "f16";
    SECTION(std::string(precision) + " instance_norm") {
      compareWithReference(
          network(precision, "tensor<2x6x3x4xf32>",
                  params +
                      "  %y = mix.instance_norm %x, %s, %b {epsilon = "
                      "1.0e-3 : f64}" +
                      types),
          shape, x, f16);
    }
    for (int groups : {1, 2, 3, 6}) {
      SECTION(std::string(precision) + " group_norm " +
              std::to_string(groups)) {
        compareWithReference(
            network(precision, "tensor<2x6x3x4xf32>",
                    params + "  %y = mix.group_norm %x, %s, %b {num_groups = " +
                        std::to_string(groups) + " : i64}" + types),
            shape, x, f16);
      }
    }
  }
}

TEST_CASE("a batch_norm folded into the conv2d before it computes the same",
          "[exec][norm][fold]") {
  // With epsilon = 2^-20 and variances v - 2^-20 (exact in f32), v + 2^-20
  // is exactly 4, 1, 1/4, 16 in f32 and f64, and
  // s = scale / sqrt(v) = 0.5, 4, -1, 1/16: powers of two, so
  // the folded weights w * s and bias (b - mean) * s + beta are exact, and
  // so are the conv2d's sums (27 products of multiples of 1/8 and 1/128,
  // each at most 64 in magnitude: multiples of 2^-10 below 2^11, within
  // f32's 24 bits) and the unfolded batch_norm's arithmetic. Folded and
  // unfolded builds must therefore both equal the f64 interpreter bit for
  // bit; a wrong formula (a missing mean, s applied twice, the bias not
  // scaled) changes the values. A second conv2d whose result is also
  // returned is not folded, and must be exact too.
  std::string type = "tensor<2x3x5x5xf32>", out = "tensor<2x4x5x5xf32>";
  auto exact = [](double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return std::string(text);
  };
  double eps = std::ldexp(1.0, -20);
  std::string epsilon = exact(eps), variances;
  for (double v : {4.0, 1.0, 0.25, 16.0})
    variances += (variances.empty() ? "" : ", ") + exact(v - eps);
  std::string body =
      weight("w", {4, 3, 3, 3}, 31) + weight("b", {4}, 32) +
      weight("beta", {4}, 33) + weight("mean", {4}, 34) +
      "  %s = mix.weight dense<[1.0, 4.0, -0.5, 0.25]> : tensor<4xf32>\n"
      "  %v = mix.weight dense<[" +
      variances +
      "]> : tensor<4xf32>\n"
      "  %c = mix.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (" +
      type + ", tensor<4x3x3x3xf32>, tensor<4xf32>) -> " + out +
      "\n"
      "  %n = mix.batch_norm %c, %s, %beta, %mean, %v {epsilon = " +
      epsilon +
      " : f64} "
      ": (" +
      out +
      ", tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> " +
      out +
      "\n"
      "  %y = mix.relu %n : (" +
      out + ") -> " + out +
      "\n"
      "  %c2 = mix.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (" +
      type + ", tensor<4x3x3x3xf32>) -> " + out +
      "\n"
      "  %n2 = mix.batch_norm %c2, %s, %beta, %mean, %v {epsilon = " +
      epsilon + " : f64} : (" + out +
      ", tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> " +
      out + "\n";
  std::string source = "mix.network @n precision(f32) (%x: " + type + ") -> (" +
                       out + ", " + out + ", " + out + ") {\n" + body +
                       "  mix.return %y, %c2, %n2 : " + out + ", " + out +
                       ", " + out + "\n}\n";
  std::vector<float> x = eighths(2 * 3 * 5 * 5, 35);
  for (bool fold : {true, false}) {
    SECTION(fold ? "folded" : "--no-fold-batch-norm") {
      ExecutionResult r =
          runBoth(source, {x}, /*verifyPolicy=*/true,
                  [&](CompileOptions &o) { o.pipeline.foldBatchNorm = fold; });
      for (size_t o = 0; o < r.compiled.size(); ++o)
        for (size_t i = 0; i < r.compiled[o].size(); ++i) {
          INFO("output " << o << " element " << i << ": got "
                         << r.compiled[o][i] << ", reference "
                         << r.reference[o].data[i]);
          CHECK(double(r.compiled[o][i]) == r.reference[o].data[i]);
        }
    }
  }
}

TEST_CASE("an f16 log_softmax beyond f16's range is reported", "[exec][norm]") {
  const std::string source =
      "mix.network @m precision(f16) (%x: tensor<4xf32>) -> tensor<4xf16> {\n"
      "  %y = mix.log_softmax %x : (tensor<4xf32>) -> tensor<4xf16>\n"
      "  mix.return %y : tensor<4xf16>\n}\n";
  auto run = [&](std::vector<float> x, bool checks, int32_t &status) {
    Jit jit;
    MixPipelineOptions options;
    options.checkedCasts = checks;
    options.verifyPolicy = false; // f16 log_softmax: see compareWithReference
    auto engine = compile(jit.context, source, options);
    REQUIRE(engine);
    auto fn = engine->lookup("_mlir_ciface_m");
    REQUIRE(bool(fn));
    std::vector<uint16_t> y(4, 0);
    auto in = view<float, 1>(x.data(), {4});
    auto out = view<uint16_t, 1>(y.data(), {4});
    mixrt_check_reset();
    reinterpret_cast<void (*)(StridedMemRefType<float, 1> *,
                              StridedMemRefType<uint16_t, 1> *)>(*fn)(&in,
                                                                      &out);
    status = mixrt_check_status();
    return y;
  };
  int32_t status = 0;
  // x - max = -131008 at element 1: finite in f32, beyond f16's 65504.
  std::vector<uint16_t> y =
      run({65504.0f, -65504.0f, 0.0f, 65504.0f}, /*checks=*/true, status);
  CHECK(y[1] == 0xFC00); // -inf, the IEEE result
  CHECK(status == MIXRT_STATUS_OUT_OF_RANGE);
  std::string message = mixrt_last_error_message();
  INFO(message);
  CHECK(message.find("log_softmax in f16 overflows at element 1") !=
        std::string::npos);
  // Within range nothing is reported, and nothing without checks.
  run({1.0f, -2.0f, 0.5f, 3.0f}, /*checks=*/true, status);
  CHECK(status == MIXRT_STATUS_OK);
  run({65504.0f, -65504.0f, 0.0f, 65504.0f}, /*checks=*/false, status);
  CHECK(status == MIXRT_STATUS_OK);
}

TEST_CASE("the interpreter's group_norm, instance_norm and log_softmax on "
          "hand-computed values",
          "[exec][norm]") {
  // [1, 4, 2]: channels [2, 6], [2, 6], [2, -2], [2, -2]; scale [1, 2, 3,
  // 4], bias [0, 1, 0, -1]. Two groups: means 4 and 0, variances 4, so with
  // epsilon 5 the denominators are 3. Per channel the same statistics.
  auto source = [](const std::string &op, const std::string &attrs) {
    return "mix.network @n precision(f64) (%x: tensor<1x4x2xf64>) -> "
           "tensor<1x4x2xf64> {\n"
           "  %s = mix.weight dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>\n"
           "  %b = mix.weight dense<[0.0, 1.0, 0.0, -1.0]> : tensor<4xf64>\n"
           "  %y = mix." +
           op + " %x, %s, %b " + attrs +
           " : (tensor<1x4x2xf64>, tensor<4xf64>, tensor<4xf64>) -> "
           "tensor<1x4x2xf64>\n  mix.return %y : tensor<1x4x2xf64>\n}\n";
  };
  RefTensor x = tensor({1, 4, 2}, {2, 6, 2, 6, 2, -2, 2, -2});
  auto expectNear = [](const std::vector<double> &got,
                       const std::vector<double> &want) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
      // A few f64 roundings of values below 8.
      CHECK(std::fabs(got[i] - want[i]) <= 1e-14);
    }
  };
  const std::vector<double> perGroup = {-2.0 / 3,    2.0 / 3,     -1.0 / 3,
                                        7.0 / 3,     2.0,         -2.0,
                                        8.0 / 3 - 1, -8.0 / 3 - 1};
  expectNear(
      Model(source("group_norm", "{num_groups = 2 : i64, epsilon = 5.0 : f64}"))
          .ok({x})[0]
          .data,
      perGroup);
  expectNear(
      Model(source("instance_norm", "{epsilon = 5.0 : f64}")).ok({x})[0].data,
      perGroup);
  // One group: mean 2, variance 8, epsilon 1: denominator 3.
  expectNear(
      Model(source("group_norm", "{num_groups = 1 : i64, epsilon = 1.0 : f64}"))
          .ok({x})[0]
          .data,
      {0, 4.0 / 3, 1, 11.0 / 3, 0, -4, -1, -19.0 / 3});

  // log_softmax along axis 0 of [[0, 1], [2, 3]]: each column is (a, a + 2).
  Model logSoftmax("mix.network @n precision(f64) (%x: tensor<2x2xf64>) -> "
                   "tensor<2x2xf64> {\n"
                   "  %y = mix.log_softmax %x {axis = 0 : i64} : "
                   "(tensor<2x2xf64>) -> tensor<2x2xf64>\n"
                   "  mix.return %y : tensor<2x2xf64>\n}\n");
  double l = std::log1p(std::exp(-2.0));
  expectNear(logSoftmax.ok({tensor({2, 2}, {0, 1, 2, 3})})[0].data,
             {-2 - l, -2 - l, -l, -l});
}
