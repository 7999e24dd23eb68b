//===- RecurrentExecutionTest.cpp - compiled glu/lstm/gru vs references ---===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiles the gating and recurrent layers through the whole pipeline (the
// object mixc emits, loaded by CompiledNetwork) in f32 and f16 networks and
// compares them with the f64 interpreter on the same inputs.
//
// glu: each element is a * (1 / (1 + exp(-b))) in f32: expf (glibc: within
// one ulp), the add, the division and the product (half an ulp each) give a
// result within 4 f32 ulps of the exact one, i.e. 2^-21 relative; the f16
// layer rounds that f32 value once, so it lies within one f16 ulp of the
// exact value (half an ulp for the rounding, and the f32 error can carry it
// across at most one f16 rounding boundary).
//
//===----------------------------------------------------------------------===//

#include "ExecutionTestUtil.h"

#include "llvm/ADT/APFloat.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

/// "tensor<2x3xf32>" for {2, 3}.
std::string tensorType(const std::vector<int64_t> &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

/// Checks `got` against the interpreter's `want` within `relative` (times
/// 1 + |want|), plus one f16 ulp of `want` when `f16`.
void checkClose(const std::vector<float> &got, const std::vector<double> &want,
                double relative, bool f16) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", reference " << want[i]);
    REQUIRE(std::isfinite(want[i]));
    double tolerance = relative * (1 + std::fabs(want[i]));
    if (f16)
      tolerance += ulp(want[i], llvm::APFloat::IEEEhalf());
    CHECK(std::fabs(double(got[i]) - want[i]) <= tolerance);
  }
}

} // namespace

TEST_CASE("compiled glu matches the reference on every axis", "[exec][glu]") {
  const std::vector<int64_t> shape = {2, 4, 6};
  std::vector<float> x = eighths(count(shape), 11);
  // Large gates and values: sigmoid saturates to 0 and 1, a product near
  // f16's largest value.
  x[0] = 30000.0f;
  x[3] = 20.0f;
  x[7] = -20.0f;
  for (const char *precision : {"f32", "f16"}) {
    bool f16 = std::string(precision) == "f16";
    for (int64_t axis : {-1, 1, 0, -3}) {
      int64_t a = axis < 0 ? axis + 3 : axis;
      std::vector<int64_t> out = shape;
      out[a] /= 2;
      std::string in = tensorType(shape), res = tensorType(out);
      std::string source = std::string("mix.network @n precision(") +
                           precision + ") (%x: " + in + ") -> " + res +
                           " {\n  %y = mix.glu %x {axis = " +
                           std::to_string(axis) + " : i64} : (" + in +
                           ") -> " + res + "\n  mix.return %y : " + res +
                           "\n}\n";
      INFO(source);
      // f16 glu: the policy warns (exp in f16); warnings do not fail.
      ExecutionResult r = runBoth(source, {x});
      REQUIRE(r.compiled.size() == 1);
      // Tolerances: see the file comment.
      checkClose(r.compiled[0], r.reference[0].data, std::ldexp(1.0, -21),
                 f16);
    }
  }
}

TEST_CASE("the interpreter's glu on hand-computed values", "[exec][glu]") {
  // x = [[a0, a1, b0, b1]] -> [a0 * sigmoid(b0), a1 * sigmoid(b1)]; sigmoid(0)
  // = 1/2 and sigmoid(log 3) = 3/4 exactly.
  std::string source =
      "mix.network @n precision(f32) (%x: tensor<1x4xf32>) -> "
      "tensor<1x2xf32> {\n"
      "  %y = mix.glu %x : (tensor<1x4xf32>) -> tensor<1x2xf32>\n"
      "  mix.return %y : tensor<1x2xf32>\n}\n";
  Model model(source);
  RefTensor x;
  x.shape = {1, 4};
  x.data = {3.0, -8.0, 0.0, std::log(3.0)};
  std::vector<RefTensor> y = model.ok({x});
  REQUIRE(y.size() == 1);
  CHECK(y[0].shape == llvm::SmallVector<int64_t>{1, 2});
  CHECK(y[0].data[0] == 1.5);
  CHECK(std::fabs(y[0].data[1] - (-6.0)) <= 1e-15);
}
