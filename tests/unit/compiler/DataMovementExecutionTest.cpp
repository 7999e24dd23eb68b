//===- DataMovementExecutionTest.cpp - compiled layout ops vs reference ---===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiles transpose, concat, slice, pad, the reductions and avg_pool2d with
// mixc (the object mixc emits, loaded by CompiledNetwork) and compares every
// output with the f64 interpreter, bit for bit: the inputs are multiples of
// 1/8 in [-4, 4], so every sum of these layers is exact in f32 and f16's
// range, and the one division (mean, average) or square root (l2) rounds
// once in the compiled code, like the f64 reference rounded to f32 (f64
// then f32 rounding of one division or square root of f32 values is
// innocuous: 53 >= 2 * 24 + 2). NaN must propagate through reduce_max and
// reduce_min like in the reference.
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

TEST_CASE("compiled transpose, concat, slice and pad equal the reference",
          "[exec][layout]") {
  for (const char *precision : {"f32", "f16"}) {
    SECTION(precision) {
      bool f16 = std::string(precision) == "f16";
      compareWithReference(
          network(precision, "%x: tensor<2x3x4xf32>",
                  "  %y = mix.transpose %x {permutation = array<i64: 2, 0, "
                  "1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>",
                  "tensor<4x2x3xf32>"),
          {eighths(24, 1)}, f16);
      compareWithReference(
          network(precision,
                  "%a: tensor<2x1x3xf32>, %b: tensor<2x4x3xf32>, %c: "
                  "tensor<2x2x3xf32>",
                  "  %y = mix.concat %a, %b, %c {axis = -2 : i64} : "
                  "(tensor<2x1x3xf32>, tensor<2x4x3xf32>, tensor<2x2x3xf32>) "
                  "-> tensor<2x7x3xf32>",
                  "tensor<2x7x3xf32>"),
          {eighths(6, 2), eighths(24, 3), eighths(12, 4)}, f16);
      // Step 2 on axis 1, a reversed axis 2 (step -3, from the end).
      compareWithReference(
          network(precision, "%x: tensor<2x8x7xf32>",
                  "  %y = mix.slice %x {axes = array<i64: 1, -1>, starts = "
                  "array<i64: 1, 6>, ends = array<i64: 8, -1>, steps = "
                  "array<i64: 2, -3>} : (tensor<2x8x7xf32>) -> "
                  "tensor<2x4x3xf32>",
                  "tensor<2x4x3xf32>"),
          {eighths(112, 5)}, f16);
      // start 0, step 1: the loop bound is the result's, not the input's.
      compareWithReference(
          network(precision, "%x: tensor<2x8x7xf32>",
                  "  %y = mix.slice %x {axes = array<i64: 1>, starts = "
                  "array<i64: 0>, ends = array<i64: 5>, steps = array<i64: "
                  "1>} : (tensor<2x8x7xf32>) -> tensor<2x5x7xf32>",
                  "tensor<2x5x7xf32>"),
          {eighths(112, 8)}, f16);
      for (const char *mode : {"constant", "reflect", "edge"}) {
        INFO(mode);
        compareWithReference(
            network(precision, "%x: tensor<1x2x3x4xf32>",
                    std::string("  %y = mix.pad %x {pads = array<i64: 0, 0, "
                                "2, 1, 0, 0, 1, 3>, mode = \"") +
                        mode +
                        "\", value = 1.5 : f64} : (tensor<1x2x3x4xf32>) -> "
                        "tensor<1x2x6x8xf32>",
                    "tensor<1x2x6x8xf32>"),
            {eighths(24, 6)}, f16);
      }
    }
  }
}

TEST_CASE("compiled reductions and avg_pool2d equal the reference",
          "[exec][layout]") {
  std::vector<float> x = eighths(2 * 3 * 4 * 5, 7);
  for (const char *op :
       {"reduce_sum", "reduce_mean", "reduce_l2", "reduce_max", "reduce_min"}) {
    SECTION(op) {
      std::string o = op;
      compareWithReference(
          network("f32", "%x: tensor<2x3x4x5xf32>",
                  "  %y = mix." + o +
                      " %x {axes = array<i64: 1, -1>, keepdims = true} : "
                      "(tensor<2x3x4x5xf32>) -> tensor<2x1x4x1xf32>",
                  "tensor<2x1x4x1xf32>"),
          {x});
      compareWithReference(
          network("f16", "%x: tensor<2x3x4x5xf32>",
                  "  %y = mix." + o +
                      " %x {axes = array<i64: 2>, keepdims = false} : "
                      "(tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32>",
                  "tensor<2x3x5xf32>"),
          {x}, /*f16=*/true);
      // No axes: everything, into a scalar-shaped [1, 1, 1, 1].
      compareWithReference(
          network("f32", "%x: tensor<2x3x4x5xf32>",
                  "  %y = mix." + o +
                      " %x : (tensor<2x3x4x5xf32>) -> tensor<1x1x1x1xf32>",
                  "tensor<1x1x1x1xf32>"),
          {x});
    }
  }
  SECTION("reduce_prod") {
    // Powers of two, +-{1/2, 1, 2}: every partial product is a power of two
    // well inside f32 and f16 (at most 2^+-120 over all 120, 2^+-4 over the
    // 4 of axis 2), so the f32 accumulator's chain is exact and equals the
    // f64 reference bit for bit; a 0 times an inf makes one slice NaN.
    std::vector<float> p(x.size());
    for (size_t i = 0; i < p.size(); ++i)
      p[i] = float((i * 7 % 5 == 0 ? -1 : 1) *
                   std::ldexp(1.0, int((i * 11 + 3) % 3) - 1));
    std::vector<float> special = p;
    special[0] = 0.0f;
    special[1] = INFINITY; // the same slice (n 0, h 0) as element 0
    compareWithReference(
        network("f32", "%x: tensor<2x3x4x5xf32>",
                "  %y = mix.reduce_prod %x {axes = array<i64: 1, -1>, "
                "keepdims = true} : (tensor<2x3x4x5xf32>) -> "
                "tensor<2x1x4x1xf32>",
                "tensor<2x1x4x1xf32>"),
        {special});
    compareWithReference(
        network("f16", "%x: tensor<2x3x4x5xf32>",
                "  %y = mix.reduce_prod %x {axes = array<i64: 2>, keepdims = "
                "false} : (tensor<2x3x4x5xf32>) -> tensor<2x3x5xf32>",
                "tensor<2x3x5xf32>"),
        {p}, /*f16=*/true);
    compareWithReference(
        network("f32", "%x: tensor<2x3x4x5xf32>",
                "  %y = mix.reduce_prod %x : (tensor<2x3x4x5xf32>) -> "
                "tensor<1x1x1x1xf32>",
                "tensor<1x1x1x1xf32>"),
        {p});
  }
  SECTION("NaN propagates through reduce_max and reduce_min") {
    std::vector<float> withNaN = x;
    withNaN[7] = NAN;
    for (const char *op : {"reduce_max", "reduce_min"})
      compareWithReference(
          network("f32", "%x: tensor<2x3x4x5xf32>",
                  std::string("  %y = mix.") + op +
                      " %x {axes = array<i64: 3>, keepdims = false} : "
                      "(tensor<2x3x4x5xf32>) -> tensor<2x3x4xf32>",
                  "tensor<2x3x4xf32>"),
          {withNaN});
  }
  SECTION("avg_pool2d") {
    for (const char *include : {"false", "true"})
      compareWithReference(
          network("f32", "%x: tensor<2x3x4x5xf32>",
                  std::string("  %y = mix.avg_pool2d %x {kernel = array<i64: "
                              "3, 2>, strides = array<i64: 2, 2>, padding = "
                              "array<i64: 1, 0, 2, 1>, count_include_pad = ") +
                      include +
                      "} : (tensor<2x3x4x5xf32>) -> tensor<2x3x3x3xf32>",
                  "tensor<2x3x3x3xf32>"),
          {x});
  }
}

TEST_CASE("compiled conv_transpose2d and resize equal the reference",
          "[exec][layout]") {
  // Multiples of 1/8 times multiples of 1/8, summed: exact in f32.
  SECTION("conv_transpose2d: stride, padding, output padding, bias") {
    compareWithReference(
        network("f32",
                "%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>, %b: "
                "tensor<2xf32>",
                "  %y = mix.conv_transpose2d %x, %w, %b {strides = array<i64: "
                "2, 2>, padding = array<i64: 1, 0, 1, 1>, output_padding = "
                "array<i64: 1, 0>} : (tensor<1x4x3x3xf32>, "
                "tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>",
                "tensor<1x2x6x6xf32>"),
        {eighths(36, 9), eighths(72, 10), eighths(2, 11)});
  }
  SECTION("conv_transpose2d: groups and dilation") {
    compareWithReference(
        network("f32", "%x: tensor<2x4x3x3xf32>, %w: tensor<4x3x2x2xf32>",
                "  %y = mix.conv_transpose2d %x, %w {dilations = array<i64: "
                "2, 1>, groups = 2 : i64} : (tensor<2x4x3x3xf32>, "
                "tensor<4x3x2x2xf32>) -> tensor<2x6x5x4xf32>",
                "tensor<2x6x5x4xf32>"),
        {eighths(72, 12), eighths(48, 13)});
  }
  std::vector<float> x = eighths(2 * 3 * 4 * 5, 14);
  SECTION("resize nearest, every rounding mode") {
    for (const char *mode :
         {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})
      for (const char *coordinates :
           {"half_pixel", "asymmetric", "align_corners"}) {
        INFO(mode << " " << coordinates);
        compareWithReference(
            network("f32", "%x: tensor<2x3x4x5xf32>",
                    std::string("  %y = mix.resize %x {scales = array<f64: "
                                "2.0, 1.5>, nearest_mode = \"") +
                        mode + "\", coordinate_mode = \"" + coordinates +
                        "\"} : (tensor<2x3x4x5xf32>) -> tensor<2x3x8x7xf32>",
                    "tensor<2x3x8x7xf32>"),
            {x});
      }
  }
  SECTION("resize linear") {
    // Scale 2, half_pixel: weights 1/4 and 3/4, exact.
    compareWithReference(
        network("f32", "%x: tensor<2x3x4x5xf32>",
                "  %y = mix.resize %x {mode = \"linear\", scales = "
                "array<f64: 2.0, 2.0>} : (tensor<2x3x4x5xf32>) -> "
                "tensor<2x3x8x10xf32>",
                "tensor<2x3x8x10xf32>"),
        {x});
    // Other weights round in f32: within a few f32 ulps of |values| <= 4.
    for (const char *coordinates :
         {"pytorch_half_pixel", "asymmetric", "align_corners"})
      compareWithReference(
          network("f32", "%x: tensor<2x3x4x5xf32>",
                  std::string("  %y = mix.resize %x {mode = \"linear\", "
                              "scales = array<f64: 1.75, 0.6>, "
                              "coordinate_mode = \"") +
                      coordinates +
                      "\"} : (tensor<2x3x4x5xf32>) -> tensor<2x3x7x3xf32>",
                  "tensor<2x3x7x3xf32>"),
          {x}, /*f16=*/false, /*tolerance=*/std::ldexp(1.0, -20));
  }
  SECTION("resize cubic") {
    // Keys' kernel (a = -0.75): the weights sum to 1 and their magnitudes
    // to at most 1.375 (at r = 1/2), so with |x| <= 4 every partial sum is
    // below 8; 16 products and 12 adds along the columns, 4 products and 3
    // adds along the rows, plus the weights' rounding to f32, are at most
    // 40 roundings of 2^-24 * 8 each: 40 * 2^-21 absolute.
    const double bound = 40 * std::ldexp(1.0, -21);
    for (const char *coordinates :
         {"half_pixel", "pytorch_half_pixel", "asymmetric", "align_corners"}) {
      INFO(coordinates);
      compareWithReference(
          network("f32", "%x: tensor<2x3x4x5xf32>",
                  std::string("  %y = mix.resize %x {mode = \"cubic\", "
                              "scales = array<f64: 1.75, 0.6>, "
                              "coordinate_mode = \"") +
                      coordinates +
                      "\"} : (tensor<2x3x4x5xf32>) -> tensor<2x3x7x3xf32>",
                  "tensor<2x3x7x3xf32>"),
          {x}, /*f16=*/false, bound);
      compareWithReference(
          network("f32", "%x: tensor<2x3x4x5xf32>",
                  std::string("  %y = mix.resize %x {mode = \"cubic\", "
                              "scales = array<f64: 2.0, 3.0>, "
                              "coordinate_mode = \"") +
                      coordinates +
                      "\"} : (tensor<2x3x4x5xf32>) -> tensor<2x3x8x15xf32>",
                  "tensor<2x3x8x15xf32>"),
          {x}, /*f16=*/false, bound);
    }
  }
}
