//===- AttentionExecutionTest.cpp - compiled attention vs reference -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiles mix.attention with q/k/v/output biases, an additive padding mask
// (a network input) and causal masking with mixc (the object mixc emits,
// loaded by CompiledNetwork) and compares its outputs with the f64
// interpreter, in f32 and in an f16 layer. Inputs are multiples of 1/8 in
// [-4, 4], weights multiples of 1/64 in [-1/2, 1/2] and biases multiples of
// 1/8: exact in f16, and the projections' sums (with their biases) are exact
// in f32, so the differences come from the scores, the softmax and (f16)
// the rounding of the context and of the result.
//
//===----------------------------------------------------------------------===//

#include "ExecutionTestUtil.h"

#include <catch2/catch.hpp>

#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

/// `values` as a dense literal of the given type, in rows of `cols`
/// values (a 2-D literal) unless `cols` is 0.
std::string dense(const std::vector<float> &values, const std::string &type,
                  size_t cols = 0) {
  std::ostringstream os;
  // Every value with a decimal point (a float literal), exactly.
  os << std::showpoint << std::setprecision(9) << "mix.weight dense<[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (cols && i % cols == 0)
      os << (i ? "], [" : "[");
    else if (i)
      os << ", ";
    os << values[i];
  }
  os << (cols ? "]" : "") << "]> : " << type;
  return os.str();
}

/// A [2, 5, 8] self-attention with 2 heads, every bias, the [2, 1, 1, 5]
/// mask input %m and `causal`, at the network precision `precision`.
std::string attentionNetwork(const char *precision) {
  std::vector<float> w[4], b[4];
  for (unsigned i = 0; i < 4; ++i) {
    w[i] = eighths(64, 20 + i);
    for (float &v : w[i])
      v /= 8; // multiples of 1/64 in [-1/2, 1/2]
    b[i] = eighths(8, 30 + i);
  }
  std::string s = std::string("mix.network @att precision(") + precision +
                  ") (%x: tensor<2x5x8xf32>, %m: tensor<2x1x1x5xf32>) -> "
                  "tensor<2x5x8xf32> {\n";
  const char *names[] = {"q", "k", "v", "o"};
  for (unsigned i = 0; i < 4; ++i) {
    s += std::string("  %w") + names[i] + " = " +
         dense(w[i], "tensor<8x8xf32>", 8) + "\n";
    s += std::string("  %b") + names[i] + " = " + dense(b[i], "tensor<8xf32>") +
         "\n";
  }
  s += "  %y = mix.attention %x, %wq, %wk, %wv, %wo bq(%bq) bk(%bk) bv(%bv) "
       "bo(%bo) mask(%m) {causal = true, num_heads = 2 : i64} : "
       "(tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, "
       "tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, "
       "tensor<8xf32>, tensor<8xf32>, tensor<2x1x1x5xf32>) -> "
       "tensor<2x5x8xf32>\n";
  s += "  mix.return %y : tensor<2x5x8xf32>\n}\n";
  return s;
}

/// A padding mask [2, 1, 1, 5]: sample 0 has 5 valid positions, sample 1
/// the first 3; the padded keys get `masked`.
std::vector<float> paddingMask(float masked) {
  std::vector<float> m(10, 0.0f);
  m[5 + 3] = m[5 + 4] = masked;
  return m;
}

} // namespace

TEST_CASE("compiled attention with biases and masks matches the interpreter",
          "[exec][attention]") {
  std::vector<float> x = eighths(2 * 5 * 8, 7);
  // f32: the scores, exp and the weighted sums round to f32 (2^-24 relative
  // each, sums of at most 8 terms); outputs are at most ~40 in magnitude, so
  // 1e-5 * (1 + |y|) is ~50x the worst f32 error and far below what a
  // dropped bias (>= 1/8) or an ignored mask (O(1)) changes.
  SECTION("f32, padding mask -1e4") {
    compareWithReference(attentionNetwork("f32"), {x, paddingMask(-1e4f)},
                         false, 1e-5);
  }
  // f16 layer: the context is rounded to f16 (2^-11 relative) before the
  // output projection (8 terms with |w| <= 1/2) and the result to f16:
  // |error| <= 2^-11 * (sum |ctx * w| + |y|), under 5e-3 * (1 + |y|) here;
  // 1e-2 * (1 + |y|) leaves 2x margin and still catches a dropped bias or
  // mask.
  SECTION("f16 layer, padding mask -1e4") {
    compareWithReference(attentionNetwork("f16"), {x, paddingMask(-1e4f)},
                         false, 1e-2);
  }
  // The mask joins the scores in the accumulator type (f32): -3e38 stays
  // finite in an f16 layer (a checked cast to the f16 activations would
  // report an overflow at run time, which runBoth checks).
  SECTION("f16 layer, padding mask -3e38") {
    compareWithReference(attentionNetwork("f16"), {x, paddingMask(-3e38f)},
                         false, 1e-2);
  }
}
