//===- MaskExecutionTest.cpp - compiled indexing layers vs reference ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiles gather, expand, compare, where and max_pool2d with dilations and
// ceil_mode with mixc (the object mixc emits, loaded by CompiledNetwork) and
// compares every output with the f64 interpreter, bit for bit, in f32 and in
// f16: these layers copy or compare elements without arithmetic, and the inputs
// are multiples of 1/8 in [-4, 4], exact in both formats, so there is nothing
// to round. -inf and NaN inputs check that a NaN wins a max window and that
// cells beyond the input (padding, ceil_mode's overhang) never do.
//
//===----------------------------------------------------------------------===//

#include "ExecutionTestUtil.h"

#include "compiler/CompiledNetwork.h"
#include "mixrt/mixrt.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

std::string network(const char *precision, const std::string &args,
                    const std::string &body, const std::string &result) {
  return std::string("mix.network @n precision(") + precision + ") (" + args +
         ") -> " + result + " {\n" + body + "\n  mix.return %y : " + result +
         "\n}\n";
}

} // namespace

TEST_CASE("compiled gather and expand equal the reference", "[exec][masks]") {
  for (const char *precision : {"f32", "f16"}) {
    SECTION(precision) {
      bool f16 = std::string(precision) == "f16";
      // A scalar index: the CLS token x[:, 0].
      compareWithReference(
          network(precision, "%x: tensor<2x5x3xf32>",
                  "  %y = mix.gather %x {axis = 1 : i64, indices = dense<0> : "
                  "tensor<i64>} : (tensor<2x5x3xf32>) -> tensor<2x3xf32>",
                  "tensor<2x3xf32>"),
          {eighths(30, 11)}, f16);
      // 1-D indices along the last axis, repeated and out of order.
      compareWithReference(
          network(precision, "%x: tensor<2x5x3xf32>",
                  "  %y = mix.gather %x {axis = -1 : i64, indices = dense<[2, "
                  "0, 2, 1]> : tensor<4xi64>} : (tensor<2x5x3xf32>) -> "
                  "tensor<2x5x4xf32>",
                  "tensor<2x5x4xf32>"),
          {eighths(30, 12)}, f16);
      // 2-D indices along axis 0.
      compareWithReference(
          network(precision, "%x: tensor<4x3xf32>",
                  "  %y = mix.gather %x {axis = 0 : i64, indices = dense<[[3, "
                  "1], [0, 3], [2, 2]]> : tensor<3x2xi64>} : "
                  "(tensor<4x3xf32>) -> tensor<3x2x3xf32>",
                  "tensor<3x2x3xf32>"),
          {eighths(12, 13)}, f16);
      // Expand: a new leading dimension, a 1 broadcast, a kept dimension.
      compareWithReference(
          network(precision, "%x: tensor<3x1x2xf32>",
                  "  %y = mix.expand %x : (tensor<3x1x2xf32>) -> "
                  "tensor<2x3x4x2xf32>",
                  "tensor<2x3x4x2xf32>"),
          {eighths(6, 14)}, f16);
      compareWithReference(
          network(precision, "%x: tensor<1xf32>",
                  "  %y = mix.expand %x : (tensor<1xf32>) -> tensor<3x5xf32>",
                  "tensor<3x5xf32>"),
          {eighths(1, 15)}, f16);
    }
  }
}

namespace {

/// Compiles `source` (inputs: x [f32], then integer indices of element type
/// `Index`), runs it on `x` and `ids`, and returns its one f32 output.
template <typename Index>
std::vector<float> runGather(const std::string &source, std::vector<float> x,
                             std::vector<Index> ids) {
  auto compiled = compileSource(source);
  const NetworkSignature &sig = compiled->signature();
  REQUIRE(sig.inputs.size() == 2);
  REQUIRE(sig.outputs.size() == 1);
  std::vector<float> y(count(sig.outputs[0].shape), -99.0f);
  runOnce(*compiled, {x.data(), ids.data(), y.data()});
  return y;
}

} // namespace

TEST_CASE("compiled gather by run-time indices equals the reference, and "
          "clamps what the reference refuses",
          "[exec][masks]") {
  for (const char *precision : {"f32", "f16"}) {
    SECTION(precision) {
      bool f16 = std::string(precision) == "f16";
      const llvm::fltSemantics &sem =
          f16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::IEEEsingle();
      // i64 indices along the middle axis (negative ones from the end), and
      // i32 2-D indices along axis 0.
      std::string middle = network(
          precision, "%x: tensor<2x5x3xf32>, %i: tensor<4xi64>",
          "  %y = mix.gather %x, %i {axis = 1 : i64} : (tensor<2x5x3xf32>, "
          "tensor<4xi64>) -> tensor<2x4x3xf32>",
          "tensor<2x4x3xf32>");
      std::string first = network(
          precision, "%x: tensor<4x3xf32>, %i: tensor<3x2xi32>",
          "  %y = mix.gather %x, %i {axis = 0 : i64} : (tensor<4x3xf32>, "
          "tensor<3x2xi32>) -> tensor<3x2x3xf32>",
          "tensor<3x2x3xf32>");
      std::vector<float> x = eighths(30, 16), x2 = eighths(12, 17);
      x[7] = std::nanf("");
      std::vector<int64_t> ids = {4, -1, 0, -5};
      std::vector<int32_t> ids2 = {3, 1, -4, 3, 2, -2};
      auto reference =
          [&](const std::string &source, const std::vector<float> &in,
              std::vector<int64_t> inShape, std::vector<double> index,
              std::vector<int64_t> indexShape) {
            Model model(source);
            RefTensor a, b;
            a.shape.assign(inShape.begin(), inShape.end());
            a.data.assign(in.begin(), in.end());
            b.shape.assign(indexShape.begin(), indexShape.end());
            b.data = std::move(index);
            return model.ok({a, b})[0].data;
          };
      auto compare = [&](const std::vector<float> &got,
                         const std::vector<double> &want) {
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          INFO("element " << i << ": got " << got[i] << ", reference "
                          << want[i]);
          if (std::isnan(want[i]))
            CHECK(std::isnan(got[i]));
          else
            CHECK(double(got[i]) == roundTo(want[i], sem));
        }
      };
      compare(runGather(middle, x, ids),
              reference(middle, x, {2, 5, 3}, {4, -1, 0, -5}, {4}));
      compare(runGather(first, x2, ids2),
              reference(first, x2, {4, 3}, {3, 1, -4, 3, 2, -2}, {3, 2}));

      // Out of range: the reference refuses, compiled code clamps into the
      // axis (9 reads row 4, -7 row 0 after the +5): never outside x.
      std::vector<float> y =
          runGather(middle, x, std::vector<int64_t>{9, -7, 5, -6});
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t n = 0; n < 4; ++n)
          for (int64_t j = 0; j < 3; ++j) {
            int64_t row = n % 2 == 0 ? 4 : 0;
            float want = x[(b * 5 + row) * 3 + j];
            INFO("b " << b << " n " << n << " j " << j);
            if (std::isnan(want))
              CHECK(std::isnan(y[(b * 4 + n) * 3 + j]));
            else
              CHECK(y[(b * 4 + n) * 3 + j] == float(roundTo(want, sem)));
          }
      Model model(middle);
      RefTensor a, b;
      a.shape = {2, 5, 3};
      a.data.assign(x.begin(), x.end());
      b.shape = {4};
      b.data = {9, -7, 5, -6};
      CHECK(model.error({a, b}) ==
            "test.mlir:2:8: mix.gather: index 9 at element 0 is out of range "
            "[-5, 5) along axis 1");
    }
  }
}

TEST_CASE("compiled max_pool2d with dilations and ceil_mode equals the "
          "reference",
          "[exec][masks]") {
  for (const char *precision : {"f32", "f16"}) {
    SECTION(precision) {
      bool f16 = std::string(precision) == "f16";
      std::vector<float> x = eighths(2 * 7 * 7, 21);
      x[5] = std::nanf("");
      x[60] = -INFINITY;
      // Dilations 2 x 3 with padding.
      compareWithReference(
          network(precision, "%x: tensor<1x2x7x7xf32>",
                  "  %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, "
                  "dilations = array<i64: 2, 3>, padding = array<i64: 1, 0, 1, "
                  "1>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x7x5xf32>",
                  "tensor<1x2x7x5xf32>"),
          {x}, f16);
      // ceil_mode: the last window of each row and column overhangs the
      // input by one cell.
      compareWithReference(
          network(precision, "%x: tensor<1x2x7x7xf32>",
                  "  %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, "
                  "strides = array<i64: 2, 2>, ceil_mode = true} : "
                  "(tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>",
                  "tensor<1x2x4x4xf32>"),
          {x}, f16);
      // Both, with padding; the last window that would start in the bottom
      // padding is dropped (2 rows, not 3).
      compareWithReference(
          network(precision, "%x: tensor<1x2x7x7xf32>",
                  "  %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, "
                  "strides = array<i64: 4, 2>, dilations = array<i64: 1, 2>, "
                  "padding = array<i64: 1, 1, 1, 1>, ceil_mode = true} : "
                  "(tensor<1x2x7x7xf32>) -> tensor<1x2x2x4xf32>",
                  "tensor<1x2x2x4xf32>"),
          {x}, f16);
    }
  }
}

namespace {

/// Multiples of 1/2 in [-1, 1]: equal operands are common.
std::vector<float> halves(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> k(-2, 2);
  std::vector<float> v(n);
  for (float &x : v)
    x = float(k(rng)) / 2.0f;
  return v;
}

/// where(compare(a, b, predicate), 1, -1): the mask as floats.
std::string compareNetwork(const char *precision, const char *predicate) {
  return network(
      precision, "%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>",
      std::string("  %one = mix.weight dense<1.0> : tensor<f32>\n"
                  "  %minus = mix.weight dense<-1.0> : tensor<f32>\n"
                  "  %m = mix.compare %a, %b {predicate = \"") +
          predicate +
          "\"} : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xi1>\n"
          "  %y = mix.where %m, %one, %minus : (tensor<2x3x4xi1>, "
          "tensor<f32>, tensor<f32>) -> tensor<2x3x4xf32>",
      "tensor<2x3x4xf32>");
}

} // namespace

TEST_CASE("compiled compare and where equal the reference", "[exec][masks]") {
  for (const char *precision : {"f32", "f16"}) {
    SECTION(precision) {
      bool f16 = std::string(precision) == "f16";
      std::vector<float> a = halves(24, 31), b = halves(3, 32);
      a[1] = std::nanf("");
      a[7] = INFINITY;
      a[13] = -INFINITY;
      for (const char *p :
           {"eq", "ne", "lt", "le", "gt", "ge", "ult", "ule", "ugt", "uge"}) {
        INFO("predicate " << p);
        compareWithReference(compareNetwork(precision, p), {a, b}, f16);
      }
      // A NaN in b: every row compares false (ne true).
      std::vector<float> nanB = b;
      nanB[2] = std::nanf("");
      compareWithReference(compareNetwork(precision, "le"), {a, nanB}, f16);
      // where of activations broadcast three ways; NaN and infinities are
      // selected as they are.
      std::vector<float> x = eighths(4, 33), y = eighths(6, 34);
      x[0] = std::nanf("");
      y[5] = -INFINITY;
      compareWithReference(
          network(precision,
                  "%c: tensor<2x1x4xf32>, %x: tensor<4xf32>, %w: "
                  "tensor<2x3x1xf32>",
                  "  %z = mix.weight dense<0.0> : tensor<f32>\n"
                  "  %m = mix.compare %c, %z {predicate = \"gt\"} : "
                  "(tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x1x4xi1>\n"
                  "  %y = mix.where %m, %x, %w : (tensor<2x1x4xi1>, "
                  "tensor<4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>",
                  "tensor<2x3x4xf32>"),
          {eighths(8, 35), x, y}, f16);
    }
  }
}

TEST_CASE("compiled compare follows IEEE for NaN", "[exec][masks]") {
  // a = [1, NaN, 2, NaN], b = [1, 1, NaN, NaN]: only 1 vs 1 is ordered.
  std::vector<float> a = {1.0f, std::nanf(""), 2.0f, std::nanf("")};
  std::vector<float> b = {1.0f, 1.0f, std::nanf(""), std::nanf("")};
  auto source = [](const char *predicate) {
    return network("f16", "%a: tensor<4xf32>, %b: tensor<4xf32>",
                   std::string("  %one = mix.weight dense<1.0> : tensor<f32>\n"
                               "  %zero = mix.weight dense<0.0> : "
                               "tensor<f32>\n"
                               "  %m = mix.compare %a, %b {predicate = \"") +
                       predicate +
                       "\"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n"
                       "  %y = mix.where %m, %one, %zero : (tensor<4xi1>, "
                       "tensor<f32>, tensor<f32>) -> tensor<4xf32>",
                   "tensor<4xf32>");
  };
  const std::vector<std::pair<const char *, std::vector<float>>> expected = {
      {"eq", {1, 0, 0, 0}},
      {"ne", {0, 1, 1, 1}},
      {"lt", {0, 0, 0, 0}},
      {"le", {1, 0, 0, 0}},
      {"gt", {0, 0, 0, 0}},
      {"ge", {1, 0, 0, 0}},
      // The unordered forms: the negations of ge, gt, le, lt.
      {"ult", {0, 1, 1, 1}},
      {"ule", {1, 1, 1, 1}},
      {"ugt", {0, 1, 1, 1}},
      {"uge", {1, 1, 1, 1}}};
  for (const auto &[p, want] : expected) {
    INFO("predicate " << p);
    std::vector<std::vector<float>> got = runBoth(source(p), {a, b}).compiled;
    REQUIRE(got.size() == 1);
    CHECK(got[0] == want);
  }
}

TEST_CASE("compiled logical masks equal the reference", "[exec][masks]") {
  // p = a > 0 and q = b < 0 over a [2, 3, 4] x [3, 1] broadcast, combined
  // by every kind; not of (p and q); a NaN in a makes p false there. The
  // mask is printed as where(m, 1, 0), so the expected values are exact.
  std::vector<float> a = halves(24, 41), b = {-1.0f, 0.0f, 2.0f};
  a[3] = std::nanf("");
  auto source = [](const std::string &logic) {
    return network("f32", "%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>",
                   "  %one = mix.weight dense<1.0> : tensor<f32>\n"
                   "  %zero = mix.weight dense<0.0> : tensor<f32>\n"
                   "  %p = mix.compare %a, %zero {predicate = \"gt\"} : "
                   "(tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xi1>\n"
                   "  %q = mix.compare %b, %zero {predicate = \"lt\"} : "
                   "(tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xi1>\n" +
                       logic +
                       "  %y = mix.where %m, %one, %zero : (tensor<2x3x4xi1>, "
                       "tensor<f32>, tensor<f32>) -> tensor<2x3x4xf32>",
                   "tensor<2x3x4xf32>");
  };
  auto binary = [](const char *kind) {
    return std::string("  %m = mix.logical %p, %q {kind = \"") + kind +
           "\"} : (tensor<2x3x4xi1>, tensor<3x1xi1>) -> tensor<2x3x4xi1>\n";
  };
  for (const char *kind : {"and", "or", "xor"}) {
    INFO("kind " << kind);
    std::vector<std::vector<float>> got =
        runBoth(source(binary(kind)), {a, b}).compiled;
    REQUIRE(got.size() == 1);
    REQUIRE(got[0].size() == 24);
    for (int i = 0; i < 24; ++i) {
      bool p = a[i] > 0, q = b[(i / 4) % 3] < 0;
      bool want = std::string(kind) == "and"  ? p && q
                  : std::string(kind) == "or" ? p || q
                                              : p != q;
      CHECK(got[0][i] == (want ? 1.0f : 0.0f));
    }
    compareWithReference(source(binary(kind)), {a, b});
  }
  std::string notAnd =
      binary("and") +
      "  %n = mix.logical %m {kind = \"not\"} : (tensor<2x3x4xi1>) -> "
      "tensor<2x3x4xi1>\n";
  // %m is now the not: rename by wrapping.
  std::string text = source(notAnd);
  text.replace(text.find("mix.where %m"), 12, "mix.where %n");
  std::vector<std::vector<float>> got = runBoth(text, {a, b}).compiled;
  REQUIRE(got.size() == 1);
  for (int i = 0; i < 24; ++i) {
    bool p = a[i] > 0, q = b[(i / 4) % 3] < 0;
    CHECK(got[0][i] == (p && q ? 0.0f : 1.0f));
  }
  compareWithReference(text, {a, b});
}

// cross_entropy_loss reads logits[n, label[n]]: a label outside [0, C) is an
// error of the reference interpreter, and compiled code clamps it into the
// row (as gather does), never reading outside the logits. In-range labels
// against the interpreter; labels 7 and -3 against the loss of labels 2 and
// 0. Tolerance: the loss is a mean of two log-sum-exps of 3 logits in
// [-1, 1] computed in f32 (exp, log and 3 additions, each within an ulp or
// two): 1e-6 relative is ~10x the f32 error, and a wrong pick changes the
// loss by at least 1/8 / 2.
TEST_CASE("compiled cross_entropy_loss clamps out-of-range labels",
          "[exec][masks]") {
  std::string source =
      network("f32", "%x: tensor<2x3xf32>, %i: tensor<2xi32>",
              "  %y = mix.cross_entropy_loss %x, %i : (tensor<2x3xf32>, "
              "tensor<2xi32>) -> tensor<f32>",
              "tensor<f32>");
  std::vector<float> x = {0.5f, -1.0f, 0.25f, 1.0f, -0.125f, 0.75f};
  auto compiled = compileSource(source);
  auto loss = [&](std::vector<int32_t> labels) {
    float y = -99.0f;
    runOnce(*compiled, {x.data(), labels.data(), &y});
    return y;
  };
  auto exact = [&](int r0, int r1) {
    double total = 0;
    for (auto [row, label] : {std::pair<int, int>{0, r0}, {1, r1}}) {
      const float *z = x.data() + row * 3;
      double sum = 0;
      for (int j = 0; j < 3; ++j)
        sum += std::exp(double(z[j]));
      total += std::log(sum) - z[label];
    }
    return total / 2;
  };
  CHECK(loss({2, 0}) == Approx(exact(2, 0)).epsilon(1e-6));
  CHECK(loss({1, 2}) == Approx(exact(1, 2)).epsilon(1e-6));
  CHECK(loss({7, -3}) == Approx(exact(2, 0)).epsilon(1e-6));
  CHECK(loss({7, -3}) == loss({2, 0}));
}
