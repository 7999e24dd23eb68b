//===- InterpreterTest.cpp - the f64 reference interpreter ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Every op against hand-computed values. Inputs are chosen so that results
// are exact in f64 and compared with ==; where exp, log, tanh, erf or sqrt of
// a non-square are involved, values are compared with a relative tolerance
// of 1e-12 (libm's results are within an ulp or two; the interpreter and the
// expected value may evaluate the expression in a different order).
//
//===----------------------------------------------------------------------===//

#include "compiler/Interpreter.h"
#include "compiler/ModelLoader.h"
#include "dialect/MixOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mix;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Parses `source` (as file `test.mlir`) into a fresh module.
struct Model {
  explicit Model(llvm::StringRef source, bool allowUnregistered = false) {
    loadMixDialects(context);
    context.allowUnregisteredDialects(allowUnregistered);
    context.printOpOnDiagnostic(false);
    module = parseSourceString<ModuleOp>(source, ParserConfig(&context),
                                         "test.mlir");
    REQUIRE(module);
  }
  NetworkOp network() {
    auto networks = module->getOps<NetworkOp>();
    REQUIRE(!networks.empty());
    return *networks.begin();
  }
  llvm::Expected<std::vector<RefTensor>> run(std::vector<RefTensor> inputs,
                                             const WeightMap &weights = {}) {
    return interpret(network(), inputs, weights);
  }
  /// Runs the network and requires success.
  std::vector<RefTensor> ok(std::vector<RefTensor> inputs,
                            const WeightMap &weights = {}) {
    auto results = run(std::move(inputs), weights);
    if (!results)
      FAIL(llvm::toString(results.takeError()));
    return std::move(*results);
  }
  /// Runs the network and requires an error; returns its message.
  std::string error(std::vector<RefTensor> inputs,
                    const WeightMap &weights = {}) {
    auto results = run(std::move(inputs), weights);
    bool succeeded = static_cast<bool>(results);
    REQUIRE_FALSE(succeeded);
    return llvm::toString(results.takeError());
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

RefTensor tensor(std::initializer_list<int64_t> shape,
                 std::vector<double> data) {
  RefTensor t;
  t.shape.assign(shape.begin(), shape.end());
  t.data = std::move(data);
  return t;
}

using Shape = std::vector<int64_t>;
Shape shapeOf(const RefTensor &t) {
  return Shape(t.shape.begin(), t.shape.end());
}

/// Checks every value within a relative tolerance (absolute near zero).
void checkClose(const std::vector<double> &actual,
                const std::vector<double> &expected, double rel = 1e-12) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("element " << i << ": " << actual[i] << " vs " << expected[i]);
    CHECK(std::abs(actual[i] - expected[i]) <=
          rel * std::max(1.0, std::abs(expected[i])));
  }
}

/// A one-layer network `(%x: <in>) -> <out>` around `body`, which defines
/// `%y` from `%x`.
std::string unary(llvm::StringRef in, llvm::StringRef out,
                  llvm::StringRef body) {
  return ("mix.network @net precision(f32) (%x: " + in + ") -> " + out +
          " {\n" + body + "\n  mix.return %y : " + out + "\n}\n")
      .str();
}

} // namespace

//===----------------------------------------------------------------------===//
// Structure, weights, casts
//===----------------------------------------------------------------------===//

TEST_CASE("nested blocks bind arguments and yield results", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%x: tensor<2xf32>, %z: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a, %b = mix.block @outer precision(f16) (%p = %x, %q = %z) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %s = mix.add %p, %q : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %inner = mix.block (%r = %s, %t = %p) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> {
      %u = mix.mul %r, %t : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %v = mix.relu %u : (tensor<2xf32>) -> tensor<2xf32>
      mix.yield %v : tensor<2xf32>
    }
    mix.yield %inner, %s : tensor<2xf32>, tensor<2xf32>
  }
  mix.return %b, %a : tensor<2xf32>, tensor<2xf32>
}
)mlir");
  auto out = m.ok({tensor({2}, {1, -2}), tensor({2}, {3, 0.5})});
  REQUIRE(out.size() == 2);
  CHECK(shapeOf(out[0]) == Shape{2});
  CHECK(out[0].data == std::vector<double>{4, -1.5});
  // relu((x + z) * x) = relu([4, 3]) and the block's results are reordered.
  CHECK(out[1].data == std::vector<double>{4, 3});
}

TEST_CASE("inline and external weights", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) () -> (tensor<2x2xf32>, tensor<3xf16>, tensor<2xi32>, tensor<2xf32>) {
  %s = mix.weight dense<2.5> : tensor<2x2xf32>
  %h = mix.weight dense<[0.1, -2.0, 65504.0]> : tensor<3xf16>
  %i = mix.weight dense<[7, -3]> : tensor<2xi32>
  %e = mix.weight external "ext" : tensor<2xf32>
  mix.return %s, %h, %i, %e : tensor<2x2xf32>, tensor<3xf16>, tensor<2xi32>, tensor<2xf32>
}
)mlir");
  WeightMap weights;
  // External values are used as given, not rounded to f32.
  weights["ext"] = tensor({2}, {0.1, -kInf});
  auto out = m.ok({}, weights);
  REQUIRE(out.size() == 4);
  CHECK(shapeOf(out[0]) == Shape{2, 2});
  CHECK(out[0].data == std::vector<double>{2.5, 2.5, 2.5, 2.5});
  // Inline f16 data holds f16 values: 0.1 in f16 is 0x2E66.
  CHECK(out[1].data == std::vector<double>{0.0999755859375, -2, 65504});
  CHECK(out[2].data == std::vector<double>{7, -3});
  CHECK(out[3].data == std::vector<double>{0.1, -kInf});
}

TEST_CASE("cast rounds once to nearest even", "[interp]") {
  const char *source = R"mlir(
mix.network @net precision(f32) (%x: tensor<10xf64>) -> (tensor<10xf32>, tensor<10xf16>, tensor<10xbf16>, tensor<10xf64>) {
  %a = mix.cast %x : tensor<10xf64> to tensor<10xf32>
  %b = mix.cast %x : tensor<10xf64> to tensor<10xf16>
  %c = mix.cast %x : tensor<10xf64> to tensor<10xbf16>
  %d = mix.cast %x : tensor<10xf64> to tensor<10xf64>
  mix.return %a, %b, %c, %d : tensor<10xf32>, tensor<10xf16>, tensor<10xbf16>, tensor<10xf64>
}
)mlir";
  Model m(source);
  const double p = std::ldexp(1.0, -11);
  std::vector<double> x = {0.1,
                           65520.0,   // f16: half-way to 2^16
                           1 + p,     // f16: tie -> 1
                           1 + 3 * p, // f16: tie -> 1 + 2^-9
                           1 + p + std::ldexp(1.0, -30), // above the tie
                           std::ldexp(1.0, -25),         // f16: tie -> +0
                           -0.0,
                           kNaN,
                           -kNaN,
                           -kInf};
  auto out = m.ok({tensor({10}, x)});
  REQUIRE(out.size() == 4);

  const std::vector<double> &f32 = out[0].data;
  CHECK(f32[0] == static_cast<double>(0.1f));
  CHECK(f32[1] == 65520.0);
  CHECK(f32[2] == 1 + p);
  // f32 rounds 1 + 2^-11 + 2^-30 down to 1 + 2^-11 ...
  CHECK(f32[4] == 1 + p);
  CHECK(std::signbit(f32[6]));
  CHECK(std::isnan(f32[7]));
  CHECK(f32[9] == -kInf);

  const std::vector<double> &f16 = out[1].data;
  CHECK(f16[0] == 0.0999755859375);
  CHECK(f16[1] == kInf);
  CHECK(f16[2] == 1.0);
  CHECK(f16[3] == 1 + std::ldexp(1.0, -9));
  // ... but one direct rounding to f16 sees it above the tie (f32 first
  // would give 1.0).
  CHECK(f16[4] == 1 + std::ldexp(1.0, -10));
  CHECK(f16[5] == 0.0);
  CHECK(std::signbit(f16[6]));
  CHECK(f16[6] == 0.0);
  CHECK(std::isnan(f16[7]));
  CHECK_FALSE(std::signbit(f16[7]));
  CHECK(std::isnan(f16[8]));
  CHECK(std::signbit(f16[8]));
  CHECK(f16[9] == -kInf);

  const std::vector<double> &bf16 = out[2].data;
  // 0.1 = 0x3DCCCCCD in f32 -> bf16 0x3DCD (round up) = 0.10009765625.
  CHECK(bf16[0] == 0.10009765625);
  CHECK(bf16[1] == 65536.0);
  CHECK(bf16[2] == 1.0);
  CHECK(std::isnan(bf16[7]));

  // f64 to f64 is the identity.
  for (size_t i = 0; i < x.size(); ++i)
    if (!std::isnan(x[i]))
      CHECK(out[3].data[i] == x[i]);
}

TEST_CASE("roundToType: ties, overflow and subnormals", "[interp]") {
  MLIRContext ctx;
  Builder b(&ctx);
  FloatType f16 = b.getF16Type(), bf16 = b.getBF16Type(), f32 = b.getF32Type();
  CHECK(roundToType(65504.0, f16) == 65504.0);
  CHECK(roundToType(65519.99, f16) == 65504.0);
  CHECK(roundToType(65520.0, f16) == kInf);
  CHECK(roundToType(-65520.0, f16) == -kInf);
  CHECK(roundToType(std::ldexp(1.0, -24), f16) == std::ldexp(1.0, -24));
  CHECK(roundToType(std::ldexp(3.0, -26), f16) == std::ldexp(1.0, -24));
  // bf16 keeps 8 significant bits: 1 + 2^-8 ties to 1, 1 + 3 * 2^-8 ties up.
  CHECK(roundToType(1 + std::ldexp(1.0, -8), bf16) == 1.0);
  CHECK(roundToType(1 + std::ldexp(3.0, -8), bf16) == 1 + std::ldexp(1.0, -6));
  CHECK(roundToType(3.4e38, bf16) == kInf);
  CHECK(roundToType(1e-40, bf16) == std::ldexp(1.0, -133)); // subnormal
  CHECK(roundToType(1e39, f32) == kInf);
  CHECK(roundToType(0.1, f32) == static_cast<double>(0.1f));
}

TEST_CASE("checked cast reports an overflow", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%x: tensor<3xf32>) -> tensor<3xf16> {
  %y = mix.cast %x checked : tensor<3xf32> to tensor<3xf16>
  mix.return %y : tensor<3xf16>
}
)mlir");
  // Infinities and NaN are not overflows.
  auto out = m.ok({tensor({3}, {kInf, kNaN, 65519})});
  CHECK(out[0].data[0] == kInf);
  CHECK(std::isnan(out[0].data[1]));
  CHECK(out[0].data[2] == 65504);
  CHECK(m.error({tensor({3}, {1, -70000, 2})}) ==
        "test.mlir:3:8: checked cast: value -70000 at element 1 overflows f16");
}

//===----------------------------------------------------------------------===//
// GEMM-like layers
//===----------------------------------------------------------------------===//

TEST_CASE("dense: x W + b over leading dimensions", "[interp]") {
  Model m(unary("tensor<2x1x3xf32>", "tensor<2x1x2xf32>", R"mlir(
  %w = mix.weight dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %b = mix.weight dense<[0.5, -1.0]> : tensor<2xf32>
  %y = mix.dense %x, %w, %b : (tensor<2x1x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x1x2xf32>)mlir"));
  auto out = m.ok({tensor({2, 1, 3}, {1, 2, 3, 4, 5, 6})});
  CHECK(shapeOf(out[0]) == Shape{2, 1, 2});
  CHECK(out[0].data == std::vector<double>{4.5, 4, 10.5, 10});

  Model noBias(unary("tensor<3xf32>", "tensor<2xf32>", R"mlir(
  %w = mix.weight dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = mix.dense %x, %w : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<2xf32>)mlir"));
  CHECK(noBias.ok({tensor({3}, {1, 1, -1})})[0].data ==
        std::vector<double>{-1, 0});
}

TEST_CASE("matmul: batched", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%a: tensor<2x2x2xf32>, %b: tensor<2x2x1xf32>) -> tensor<2x2x1xf32> {
  %c = mix.matmul %a, %b : (tensor<2x2x2xf32>, tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
  mix.return %c : tensor<2x2x1xf32>
}
)mlir");
  auto out = m.ok({tensor({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                   tensor({2, 2, 1}, {1, -1, 2, 0.5})});
  CHECK(shapeOf(out[0]) == Shape{2, 2, 1});
  // [[1,2],[3,4]] [1,-1]^T = [-1, -1]; [[5,6],[7,8]] [2,0.5]^T = [13, 18].
  CHECK(out[0].data == std::vector<double>{-1, -1, 13, 18});
}

TEST_CASE("conv2d: plain, bias, batch", "[interp]") {
  Model m(unary("tensor<2x1x3x3xf32>", "tensor<2x2x2x2xf32>", R"mlir(
  %w = mix.weight dense<[[[[1.0, 0.0], [0.0, 1.0]]], [[[0.0, 1.0], [0.0, 0.0]]]]> : tensor<2x1x2x2xf32>
  %b = mix.weight dense<[10.0, 0.0]> : tensor<2xf32>
  %y = mix.conv2d %x, %w, %b : (tensor<2x1x3x3xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<2x2x2x2xf32>)mlir"));
  std::vector<double> x;
  for (int i = 1; i <= 18; ++i)
    x.push_back(i);
  auto out = m.ok({tensor({2, 1, 3, 3}, x)});
  // Filter 0: x[i][j] + x[i+1][j+1] + 10; filter 1: x[i][j+1].
  CHECK(out[0].data == std::vector<double>{16, 18, 22, 24, 2, 3, 5, 6, //
                                           34, 36, 40, 42, 11, 12, 14, 15});
}

TEST_CASE("conv2d: asymmetric padding", "[interp]") {
  Model m(unary("tensor<1x1x2x2xf32>", "tensor<1x1x1x1xf32>", R"mlir(
  %w = mix.weight dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %y = mix.conv2d %x, %w {padding = array<i64: 1, 0, 0, 1>} : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x1x1xf32>)mlir"));
  // Rows -1..1, columns 0..2: 1*4 + 2*5 + 3*7 + 4*8.
  CHECK(m.ok({tensor({1, 1, 2, 2}, {1, 2, 3, 4})})[0].data ==
        std::vector<double>{67});
}

TEST_CASE("conv2d: strides and dilations", "[interp]") {
  std::vector<double> x;
  for (int i = 0; i < 25; ++i)
    x.push_back(i); // x[r][c] = 5r + c
  Model m(unary("tensor<1x1x5x5xf32>", "tensor<1x1x2x2xf32>", R"mlir(
  %w = mix.weight dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %y = mix.conv2d %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>)mlir"));
  // out[i][j] = 10 a + 82 with a = x[2i][2j].
  CHECK(m.ok({tensor({1, 1, 5, 5}, x)})[0].data ==
        std::vector<double>{82, 102, 182, 202});

  // Different values along h and w catch swapped indices.
  Model hw(unary("tensor<1x1x3x4xf32>", "tensor<1x1x1x2xf32>", R"mlir(
  %w = mix.weight dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %y = mix.conv2d %x, %w {strides = array<i64: 1, 2>, dilations = array<i64: 2, 1>} : (tensor<1x1x3x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32>)mlir"));
  x.resize(12); // x[r][c] = 4r + c
  // out[0][j] = x[0][2j] + 2 x[0][2j+1] + 3 x[2][2j] + 4 x[2][2j+1].
  CHECK(hw.ok({tensor({1, 1, 3, 4}, x)})[0].data ==
        std::vector<double>{62, 82});
}

TEST_CASE("conv2d: groups", "[interp]") {
  Model m(unary("tensor<1x4x1x1xf32>", "tensor<1x2x1x1xf32>", R"mlir(
  %w = mix.weight dense<[[[[1.0]], [[10.0]]], [[[100.0]], [[1000.0]]]]> : tensor<2x2x1x1xf32>
  %y = mix.conv2d %x, %w {groups = 2 : i64} : (tensor<1x4x1x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x1x1xf32>)mlir"));
  // Filter 0 sees channels 0-1, filter 1 sees channels 2-3.
  CHECK(m.ok({tensor({1, 4, 1, 1}, {1, 2, 3, 4})})[0].data ==
        std::vector<double>{21, 4300});

  // Depthwise with two filters per group.
  Model dw(unary("tensor<1x2x1x1xf32>", "tensor<1x4x1x1xf32>", R"mlir(
  %w = mix.weight dense<[[[[1.0]]], [[[10.0]]], [[[100.0]]], [[[1000.0]]]]> : tensor<4x1x1x1xf32>
  %y = mix.conv2d %x, %w {groups = 2 : i64} : (tensor<1x2x1x1xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x1x1xf32>)mlir"));
  CHECK(dw.ok({tensor({1, 2, 1, 1}, {2, 3})})[0].data ==
        std::vector<double>{2, 20, 300, 3000});
}

//===----------------------------------------------------------------------===//
// Normalization, activations, elementwise
//===----------------------------------------------------------------------===//

TEST_CASE("batch_norm: per channel along axis 1", "[interp]") {
  Model m(unary("tensor<2x2x2xf32>", "tensor<2x2x2xf32>", R"mlir(
  %s = mix.weight dense<[2.0, 1.0]> : tensor<2xf32>
  %b = mix.weight dense<[0.5, 0.0]> : tensor<2xf32>
  %mu = mix.weight dense<[1.0, 3.0]> : tensor<2xf32>
  %v = mix.weight dense<[3.75, 0.75]> : tensor<2xf32>
  %y = mix.batch_norm %x, %s, %b, %mu, %v {epsilon = 0.25 : f64} : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x2xf32>)mlir"));
  // Channel 0: 2 (x - 1) / 2 + 0.5; channel 1: (x - 3) / 1.
  auto out = m.ok({tensor({2, 2, 2}, {1, 2, 3, 4, 5, -1, 7, 3})});
  CHECK(out[0].data == std::vector<double>{0.5, 1.5, 0, 1, 4.5, -1.5, 4, 0});
}

TEST_CASE("layer_norm: last dimension, biased variance", "[interp]") {
  Model m(unary("tensor<2x4xf32>", "tensor<2x4xf32>", R"mlir(
  %g = mix.weight dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = mix.weight dense<[0.0, 0.0, 0.0, 1.0]> : tensor<4xf32>
  %y = mix.layer_norm %x, %g, %b {epsilon = 0.75 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>)mlir"));
  // Both rows: mean +-0.5 away, biased variance 0.25, sqrt(0.25 + 0.75) = 1
  // (the unbiased variance 1/3 would not give exact values).
  auto out = m.ok({tensor({2, 4}, {0, 0, 1, 1, 2, 3, 2, 3})});
  CHECK(out[0].data == std::vector<double>{-0.5, -1, 1.5, 3, -0.5, 1, -1.5, 3});

  // Default epsilon 1e-5: [1, 3] has mean 2, variance 1.
  Model d(unary("tensor<2xf32>", "tensor<2xf32>", R"mlir(
  %g = mix.weight dense<1.0> : tensor<2xf32>
  %b = mix.weight dense<0.0> : tensor<2xf32>
  %y = mix.layer_norm %x, %g, %b : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>)mlir"));
  double r = 1 / std::sqrt(1 + 1e-5);
  checkClose(d.ok({tensor({2}, {1, 3})})[0].data, {-r, r});
}

TEST_CASE("softmax: axes and max subtraction", "[interp]") {
  const double l3 = std::log(3.0);
  Model last(unary("tensor<2x2xf32>", "tensor<2x2xf32>",
                   "  %y = mix.softmax %x : (tensor<2x2xf32>) -> "
                   "tensor<2x2xf32>"));
  checkClose(last.ok({tensor({2, 2}, {0, l3, 1000 + l3, 1000})})[0].data,
             {0.25, 0.75, 0.75, 0.25});

  Model first(unary("tensor<2x2xf32>", "tensor<2x2xf32>",
                    "  %y = mix.softmax %x {axis = 0 : i64} : "
                    "(tensor<2x2xf32>) -> tensor<2x2xf32>"));
  checkClose(first.ok({tensor({2, 2}, {0, 5, l3, 5})})[0].data,
             {0.25, 0.5, 0.75, 0.5});

  Model middle(unary("tensor<1x2x2xf32>", "tensor<1x2x2xf32>",
                     "  %y = mix.softmax %x {axis = -2 : i64} : "
                     "(tensor<1x2x2xf32>) -> tensor<1x2x2xf32>"));
  checkClose(middle.ok({tensor({1, 2, 2}, {l3, 7, 0, 7})})[0].data,
             {0.75, 0.5, 0.25, 0.5});
  // Without max subtraction exp(1000) would overflow to inf / inf = NaN.
  checkClose(last.ok({tensor({2, 2}, {1000, 1000, -kInf, 1})})[0].data,
             {0.5, 0.5, 0, 1});
}

TEST_CASE("relu and gelu", "[interp]") {
  Model relu(unary("tensor<5xf32>", "tensor<5xf32>",
                   "  %y = mix.relu %x : (tensor<5xf32>) -> tensor<5xf32>"));
  auto r = relu.ok({tensor({5}, {-1, 0, 2, kNaN, -kInf})})[0].data;
  CHECK(r[0] == 0);
  CHECK(r[1] == 0);
  CHECK(r[2] == 2);
  CHECK(std::isnan(r[3])); // NaN propagates
  CHECK(r[4] == 0);

  // Reference values: Phi(x) x, and the tanh form, from Python's math.
  Model exact(unary("tensor<5xf32>", "tensor<5xf32>",
                    "  %y = mix.gelu %x : (tensor<5xf32>) -> tensor<5xf32>"));
  checkClose(exact.ok({tensor({5}, {1, -1, 0.5, 3, 0})})[0].data,
             {0.8413447460685429, -0.15865525393145707, 0.34573123063700656,
              2.99595030590511, 0});
  Model approx(unary("tensor<5xf32>", "tensor<5xf32>",
                     "  %y = mix.gelu %x {approximate = true} : "
                     "(tensor<5xf32>) -> tensor<5xf32>"));
  checkClose(approx.ok({tensor({5}, {1, -1, 0.5, 3, 0})})[0].data,
             {0.8411919906082768, -0.15880800939172324, 0.34571400982514394,
              2.996362607918227, 0});
}

TEST_CASE("add and mul broadcast like numpy", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%a: tensor<2x1x3xf32>, %b: tensor<2x1xf32>, %c: tensor<f32>)
    -> (tensor<2x2x3xf32>, tensor<2x2x3xf32>, tensor<2x1xf32>) {
  %s = mix.add %a, %b : (tensor<2x1x3xf32>, tensor<2x1xf32>) -> tensor<2x2x3xf32>
  %p = mix.mul %s, %a : (tensor<2x2x3xf32>, tensor<2x1x3xf32>) -> tensor<2x2x3xf32>
  %q = mix.mul %b, %c : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  mix.return %s, %p, %q : tensor<2x2x3xf32>, tensor<2x2x3xf32>, tensor<2x1xf32>
}
)mlir");
  auto out = m.ok({tensor({2, 1, 3}, {1, 2, 3, 4, 5, 6}),
                   tensor({2, 1}, {10, 20}), tensor({}, {-2})});
  REQUIRE(out.size() == 3);
  // s[i][j][k] = a[i][0][k] + b[j][0].
  CHECK(shapeOf(out[0]) == Shape{2, 2, 3});
  CHECK(out[0].data == std::vector<double>{11, 12, 13, 21, 22, 23, //
                                           14, 15, 16, 24, 25, 26});
  CHECK(out[1].data == std::vector<double>{11, 24, 39, 21, 44, 69, //
                                           56, 75, 96, 96, 125, 156});
  CHECK(out[2].data == std::vector<double>{-20, -40});
}

//===----------------------------------------------------------------------===//
// Lookup, pooling, shapes
//===----------------------------------------------------------------------===//

TEST_CASE("embedding: rows selected by indices", "[interp]") {
  const char *source = R"mlir(
mix.network @net precision(f32) (%ids: tensor<2x2xi32>) -> (tensor<2x2x2xf32>, tensor<2x2xf32>) {
  %t = mix.weight dense<[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0]]> : tensor<3x2xf32>
  %e = mix.embedding %ids, %t : (tensor<2x2xi32>, tensor<3x2xf32>) -> tensor<2x2x2xf32>
  %c = mix.weight dense<[2, 0]> : tensor<2xi64>
  %f = mix.embedding %c, %t : (tensor<2xi64>, tensor<3x2xf32>) -> tensor<2x2xf32>
  mix.return %e, %f : tensor<2x2x2xf32>, tensor<2x2xf32>
}
)mlir";
  Model m(source);
  auto out = m.ok({tensor({2, 2}, {2, 0, 1, 2})});
  CHECK(shapeOf(out[0]) == Shape{2, 2, 2});
  CHECK(out[0].data == std::vector<double>{20, 21, 0, 1, 10, 11, 20, 21});
  CHECK(out[1].data == std::vector<double>{20, 21, 0, 1});
}

TEST_CASE("global_avg_pool and max_pool2d", "[interp]") {
  Model avg(unary("tensor<1x2x2x2xf32>", "tensor<1x2xf32>",
                  "  %y = mix.global_avg_pool %x : (tensor<1x2x2x2xf32>) -> "
                  "tensor<1x2xf32>"));
  CHECK(avg.ok({tensor({1, 2, 2, 2}, {1, 2, 3, 4, -1, 0, 0, 2})})[0].data ==
        std::vector<double>{2.5, 0.25});

  // All values negative: a padded zero would win if padding took part.
  Model pool(unary("tensor<1x1x3x3xf32>", "tensor<1x1x3x3xf32>", R"mlir(
  %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>)mlir"));
  CHECK(pool.ok({tensor({1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9})})[0]
            .data == std::vector<double>{-1, -1, -2, -1, -1, -2, -4, -4, -5});

  Model strided(unary("tensor<1x2x2x4xf32>", "tensor<1x2x1x2xf32>", R"mlir(
  %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x2x4xf32>) -> tensor<1x2x1x2xf32>)mlir"));
  auto s = strided
               .ok({tensor({1, 2, 2, 4},
                           {1, 5, 2, 0, 3, 4, kNaN, 1, //
                            -kInf, -kInf, 7, 8, -kInf, -kInf, 9, 6})})[0]
               .data;
  CHECK(s[0] == 5);
  CHECK(std::isnan(s[1])); // NaN propagates
  CHECK(s[2] == -kInf);
  CHECK(s[3] == 9);
}

TEST_CASE("reshape and flatten keep row-major data", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%x: tensor<2x3x2xf32>) -> (tensor<3x4xf32>, tensor<2x6xf32>) {
  %r = mix.reshape %x : (tensor<2x3x2xf32>) -> tensor<3x4xf32>
  %f = mix.flatten %x : (tensor<2x3x2xf32>) -> tensor<2x6xf32>
  mix.return %r, %f : tensor<3x4xf32>, tensor<2x6xf32>
}
)mlir");
  std::vector<double> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  auto out = m.ok({tensor({2, 3, 2}, x)});
  CHECK(shapeOf(out[0]) == Shape{3, 4});
  CHECK(out[0].data == x);
  CHECK(shapeOf(out[1]) == Shape{2, 6});
  CHECK(out[1].data == x);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {

using Matrix = std::vector<std::vector<double>>;

/// An independent multi-head attention: per head, explicit Q, K, V
/// matrices, masked scores set to -inf, a softmax, then the concatenation
/// and the output projection. Weights are [E, E] in x out.
Matrix referenceAttention(const Matrix &x, const Matrix &wq, const Matrix &wk,
                          const Matrix &wv, const Matrix &wo, int heads,
                          bool causal) {
  size_t s = x.size(), e = x[0].size(), d = e / heads;
  auto project = [&](const Matrix &w) {
    Matrix out(s, std::vector<double>(e, 0));
    for (size_t i = 0; i < s; ++i)
      for (size_t c = 0; c < e; ++c)
        for (size_t k = 0; k < e; ++k)
          out[i][c] += x[i][k] * w[k][c];
    return out;
  };
  Matrix q = project(wq), k = project(wk), v = project(wv);
  Matrix concat(s, std::vector<double>(e, 0));
  for (int h = 0; h < heads; ++h) {
    for (size_t i = 0; i < s; ++i) {
      std::vector<double> score(s);
      for (size_t j = 0; j < s; ++j) {
        double dot = 0;
        for (size_t t = 0; t < d; ++t)
          dot += q[i][h * d + t] * k[j][h * d + t];
        score[j] = causal && j > i ? -kInf : dot / std::sqrt(double(d));
      }
      double mx = *std::max_element(score.begin(), score.end()), sum = 0;
      for (double &sc : score)
        sum += (sc = std::exp(sc - mx));
      for (size_t j = 0; j < s; ++j)
        for (size_t t = 0; t < d; ++t)
          concat[i][h * d + t] += score[j] / sum * v[j][h * d + t];
    }
  }
  Matrix out(s, std::vector<double>(e, 0));
  for (size_t i = 0; i < s; ++i)
    for (size_t c = 0; c < e; ++c)
      for (size_t k = 0; k < e; ++k)
        out[i][c] += concat[i][k] * wo[k][c];
  return out;
}

std::vector<double> flat(const Matrix &m) {
  std::vector<double> out;
  for (const auto &row : m)
    out.insert(out.end(), row.begin(), row.end());
  return out;
}

Matrix rows(const std::vector<double> &data, size_t r, size_t c) {
  Matrix m(r, std::vector<double>(c));
  for (size_t i = 0; i < r; ++i)
    for (size_t j = 0; j < c; ++j)
      m[i][j] = data[i * c + j];
  return m;
}

std::string attentionNet(int seq, int e, int heads, bool causal) {
  std::string t =
      "tensor<1x" + std::to_string(seq) + "x" + std::to_string(e) + "xf32>";
  std::string w =
      "tensor<" + std::to_string(e) + "x" + std::to_string(e) + "xf32>";
  return "mix.network @net precision(f32) (%x: " + t + ", %wq: " + w +
         ", %wk: " + w + ", %wv: " + w + ", %wo: " + w + ") -> " + t +
         " {\n  %y = mix.attention %x, %wq, %wk, %wv, %wo {num_heads = " +
         std::to_string(heads) + " : i64" + (causal ? ", causal = true" : "") +
         "} : (" + t + ", " + w + ", " + w + ", " + w + ", " + w + ") -> " + t +
         "\n  mix.return %y : " + t + "\n}\n";
}

} // namespace

TEST_CASE("attention: hand-computed, 2 heads, causal and not", "[interp]") {
  // Head 0 (feature 0): scores 1200 x_i0 x_j0 saturate the softmax to one
  // key exactly (exp(-2400) == 0); head 1 (feature 1): Q = K = 0, uniform.
  RefTensor x = tensor({1, 2, 2}, {1, 1, -1, 3});
  RefTensor wq = tensor({2, 2}, {30, 0, 0, 0});
  RefTensor wk = tensor({2, 2}, {40, 0, 0, 0});
  RefTensor wv = tensor({2, 2}, {1, 0, 0, 1});
  RefTensor wo = tensor({2, 2}, {1, 1, 0, 1}); // [c0, c0 + c1]
  Model full(attentionNet(2, 2, 2, false));
  // Head 0 picks row i's own value: [1, -1]; head 1 averages: [2, 2].
  CHECK(full.ok({x, wq, wk, wv, wo})[0].data ==
        std::vector<double>{1, 3, -1, 1});
  Model causal(attentionNet(2, 2, 2, true));
  // Row 0 sees only itself: concat [1, 1].
  CHECK(causal.ok({x, wq, wk, wv, wo})[0].data ==
        std::vector<double>{1, 2, -1, 1});

  // One head with zero queries: the mean of the visible values.
  RefTensor zero = tensor({2, 2}, {0, 0, 0, 0});
  RefTensor id = tensor({2, 2}, {1, 0, 0, 1});
  RefTensor y = tensor({1, 2, 2}, {1, 2, 3, 4});
  Model one(attentionNet(2, 2, 1, false));
  CHECK(one.ok({y, zero, zero, id, id})[0].data ==
        std::vector<double>{2, 3, 2, 3});
  Model oneCausal(attentionNet(2, 2, 1, true));
  CHECK(oneCausal.ok({y, zero, zero, id, id})[0].data ==
        std::vector<double>{1, 2, 2, 3});
}

TEST_CASE("attention: against an independent loop", "[interp]") {
  const int s = 3, e = 4;
  auto gen = [](int n, double a, double b) {
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i)
      v[i] = std::sin(a * i + b);
    return v;
  };
  std::vector<double> x = gen(s * e, 0.7, 0.1), wq = gen(e * e, 1.3, 0.2),
                      wk = gen(e * e, 0.9, 0.3), wv = gen(e * e, 1.7, 0.4),
                      wo = gen(e * e, 2.1, 0.5);
  for (int heads : {1, 2})
    for (bool causal : {false, true}) {
      INFO("heads " << heads << (causal ? " causal" : ""));
      Model m(attentionNet(s, e, heads, causal));
      auto out =
          m.ok({tensor({1, s, e}, x), tensor({e, e}, wq), tensor({e, e}, wk),
                tensor({e, e}, wv), tensor({e, e}, wo)});
      Matrix expected =
          referenceAttention(rows(x, s, e), rows(wq, e, e), rows(wk, e, e),
                             rows(wv, e, e), rows(wo, e, e), heads, causal);
      checkClose(out[0].data, flat(expected));
    }
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

TEST_CASE("cross_entropy_loss and mse_loss", "[interp]") {
  Model ce(R"mlir(
mix.network @net precision(f32) (%z: tensor<2x2xf32>, %y: tensor<2xi32>) -> tensor<f32> {
  %l = mix.cross_entropy_loss %z, %y : (tensor<2x2xf32>, tensor<2xi32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
)mlir");
  auto out = ce.ok({tensor({2, 2}, {1000, 0, 0, 1000}), tensor({2}, {0, 0})});
  CHECK(out[0].shape.empty());
  // Row 0: 1000 - 1000 (exp(-1000) underflows to 0); row 1: 1000 - 0.
  CHECK(out[0].data == std::vector<double>{500});
  checkClose(
      ce.ok({tensor({2, 2}, {3, 3, -1, -1}), tensor({2}, {1, 0})})[0].data,
      {std::log(2.0)});

  Model mse(R"mlir(
mix.network @net precision(f32) (%p: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<f32> {
  %l = mix.mse_loss %p, %t : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
)mlir");
  auto l = mse.ok({tensor({3}, {1, 2, 3}), tensor({3}, {1, 0, 6})});
  CHECK(l[0].shape.empty());
  CHECK(l[0].data == std::vector<double>{13.0 / 3.0});
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_CASE("errors: inputs", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%x: tensor<2x3xf32>, %y: tensor<2xi32>) -> tensor<2x3xf32> {
  mix.return %x : tensor<2x3xf32>
}
)mlir");
  RefTensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(m.error({x}) ==
        "test.mlir:2:1: network @net expects 2 input(s), got 1");
  CHECK(m.error({tensor({3, 2}, x.data), tensor({2}, {0, 1})}) ==
        "test.mlir:2:1: input #0 of network @net has shape [3, 2], expected "
        "[2, 3] (tensor<2x3xf32>)");
  CHECK(m.error({x, tensor({2}, {0})}) ==
        "test.mlir:2:1: input #1 of network @net holds 1 values, but its "
        "shape [2] needs 2");
  CHECK(m.error({x, tensor({2}, {0, 1.5})}) ==
        "test.mlir:2:1: input #1 of network @net (tensor<2xi32>) holds 1.5 at "
        "element 1, which is not a value of i32");
  CHECK(m.error({x, tensor({2}, {2147483648.0, 0})}) ==
        "test.mlir:2:1: input #1 of network @net (tensor<2xi32>) holds "
        "2147483648 at element 0, which is not a value of i32");
  // Non-finite float inputs are fine and propagate.
  auto out = m.ok({tensor({2, 3}, {kNaN, kInf, -kInf, 0, 0, 0}),
                   tensor({2}, {-2147483648.0, 2147483647.0})});
  CHECK(std::isnan(out[0].data[0]));
  CHECK(out[0].data[1] == kInf);
}

TEST_CASE("errors: external weights", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) () -> tensor<2x3xf32> {
  %w = mix.weight external "fc.weight" : tensor<2x3xf32>
  mix.return %w : tensor<2x3xf32>
}
)mlir");
  CHECK(m.error({}) ==
        "test.mlir:3:8: external weight 'fc.weight' is not in the weight map");
  WeightMap weights;
  weights["fc.weight"] = tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK(m.error({}, weights) ==
        "test.mlir:3:8: external weight 'fc.weight' has shape [3, 2], but the "
        "model declares [2, 3] (tensor<2x3xf32>)");
  weights["fc.weight"] = tensor({2, 3}, {1, 2, 3});
  CHECK(m.error({}, weights) ==
        "test.mlir:3:8: external weight 'fc.weight' holds 3 values, but its "
        "shape [2, 3] needs 6");
}

TEST_CASE("errors: unsupported data and argument types", "[interp]") {
  Model resource(R"mlir(
mix.network @net precision(f32) () -> tensor<2xf32> {
  %w = mix.weight dense_resource<blob> : tensor<2xf32>
  mix.return %w : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
)mlir");
  CHECK(resource.error({}) == "test.mlir:3:8: the interpreter supports inline "
                              "weight data only as dense<...> elements");

  Model scalar(R"mlir(
mix.network @net precision(f32) (%x: f32) {
  mix.return
}
)mlir");
  CHECK(scalar.error({tensor({}, {1})}) ==
        "test.mlir:2:1: input #0 of network @net has type f32, which the "
        "interpreter does not support (only tensors)");
}

TEST_CASE("errors: indices, labels and unsupported ops", "[interp]") {
  Model emb(R"mlir(
mix.network @net precision(f32) (%ids: tensor<3xi64>) -> tensor<3x2xf32> {
  %t = mix.weight dense<1.0> : tensor<4x2xf32>
  %e = mix.embedding %ids, %t : (tensor<3xi64>, tensor<4x2xf32>) -> tensor<3x2xf32>
  mix.return %e : tensor<3x2xf32>
}
)mlir");
  CHECK(emb.error({tensor({3}, {0, 4, 1})}) ==
        "test.mlir:4:8: mix.embedding: index 4 at element 1 is out of range "
        "[0, 4)");
  CHECK(emb.error({tensor({3}, {0, 3, -1})}) ==
        "test.mlir:4:8: mix.embedding: index -1 at element 2 is out of range "
        "[0, 4)");

  Model ce(R"mlir(
mix.network @net precision(f32) (%z: tensor<2x3xf32>, %y: tensor<2xi32>) -> tensor<f32> {
  %l = mix.cross_entropy_loss %z, %y : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
)mlir");
  RefTensor z = tensor({2, 3}, {0, 0, 0, 0, 0, 0});
  CHECK(ce.error({z, tensor({2}, {2, 3})}) ==
        "test.mlir:3:8: mix.cross_entropy_loss: label 3 of row 1 is out of "
        "range [0, 3)");

  Model unknown(R"mlir(
mix.network @net precision(f32) (%x: tensor<2xf32>) -> tensor<2xf32> {
  %b = mix.block @b (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    %y = "test.mystery"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    mix.yield %y : tensor<2xf32>
  }
  mix.return %b : tensor<2xf32>
}
)mlir",
                /*allowUnregistered=*/true);
  CHECK(unknown.error({tensor({2}, {1, 2})}) ==
        "test.mlir:4:10: the interpreter does not support 'test.mystery'");
}

//===----------------------------------------------------------------------===//
// The bundled examples
//===----------------------------------------------------------------------===//

namespace {

/// The repository root, found from this file's path (tests/unit/compiler/).
std::string repoRoot() {
  llvm::StringRef file = __FILE__;
  for (int i = 0; i < 4; ++i)
    file = file.substr(0, file.find_last_of("/\\"));
  return file.str();
}

/// Deterministic values in [-scale, scale) (a 64-bit LCG).
std::vector<double> pseudoRandom(int64_t n, uint64_t &state, double scale) {
  std::vector<double> v(n);
  for (double &x : v) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x = scale * (static_cast<double>(state >> 11) * 0x1.0p-53 * 2 - 1);
  }
  return v;
}

/// A weight for every external reference in `module`: variances are
/// positive, everything else small enough to keep activations moderate.
WeightMap makeWeights(ModuleOp module) {
  WeightMap weights;
  uint64_t state = 42;
  module.walk([&](WeightOp op) {
    StringAttr ref = op.getRefAttr();
    if (!ref || weights.count(ref.getValue()))
      return;
    auto type = cast<RankedTensorType>(op.getType());
    RefTensor t;
    t.shape.assign(type.getShape().begin(), type.getShape().end());
    int64_t fanIn = type.getRank() >= 2
                        ? t.numElements() / type.getShape()[type.getRank() - 1]
                        : 1;
    if (type.getRank() == 4) // FCHW: fan-in is C * KH * KW
      fanIn = t.numElements() / type.getShape()[0];
    t.data = pseudoRandom(t.numElements(), state,
                          1.0 / std::sqrt(static_cast<double>(fanIn)));
    if (ref.getValue().ends_with(".var"))
      for (double &v : t.data)
        v = 1 + std::abs(v);
    weights[ref.getValue()] = std::move(t);
  });
  return weights;
}

/// Inputs for every network argument: floats in [-1, 1), integers in
/// [0, classes).
std::vector<RefTensor> makeInputs(NetworkOp network, int64_t classes) {
  std::vector<RefTensor> inputs;
  uint64_t state = 7;
  for (Type type : network.getArgumentTypes()) {
    auto tensorType = cast<RankedTensorType>(type);
    RefTensor t;
    t.shape.assign(tensorType.getShape().begin(), tensorType.getShape().end());
    t.data = pseudoRandom(t.numElements(), state, 1.0);
    if (tensorType.getElementType().isInteger())
      for (double &v : t.data)
        v = std::floor((v + 1) / 2 * static_cast<double>(classes));
    inputs.push_back(std::move(t));
  }
  return inputs;
}

struct Example {
  explicit Example(llvm::StringRef name) {
    loadMixDialects(context);
    auto loaded = loadModel(repoRoot() + "/examples/" + name.str(), context);
    if (!loaded)
      FAIL(llvm::toString(loaded.takeError()));
    module = std::move(*loaded);
    network = *module->getOps<NetworkOp>().begin();
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  NetworkOp network;
};

void checkFinite(const RefTensor &t) {
  for (double v : t.data)
    REQUIRE(std::isfinite(v));
}

/// Checks that every row along the last dimension sums to 1.
void checkSoftmaxRows(const RefTensor &t) {
  int64_t d = t.shape.back();
  for (int64_t r = 0; r < t.numElements() / d; ++r) {
    double sum = 0;
    for (int64_t i = 0; i < d; ++i) {
      CHECK(t.data[r * d + i] >= 0);
      sum += t.data[r * d + i];
    }
    CHECK(std::abs(sum - 1) <= 1e-12);
  }
}

} // namespace

TEST_CASE("example: resnet", "[interp]") {
  Example ex("resnet.mlir");
  auto out = interpret(ex.network, makeInputs(ex.network, 10),
                       makeWeights(*ex.module));
  if (!out)
    FAIL(llvm::toString(out.takeError()));
  REQUIRE(out->size() == 2);
  CHECK(shapeOf((*out)[0]) == Shape{2, 10});
  CHECK((*out)[1].shape.empty());
  checkFinite((*out)[0]);
  checkFinite((*out)[1]);
  CHECK((*out)[1].data[0] > 0);
}

TEST_CASE("example: transformer", "[interp]") {
  Example ex("transformer.mlir");
  auto out = interpret(ex.network, makeInputs(ex.network, 50),
                       makeWeights(*ex.module));
  if (!out)
    FAIL(llvm::toString(out.takeError()));
  REQUIRE(out->size() == 2);
  CHECK(shapeOf((*out)[0]) == Shape{2, 8, 50});
  checkFinite((*out)[0]);
  checkSoftmaxRows((*out)[0]);
  CHECK((*out)[1].shape.empty());
  checkFinite((*out)[1]);
  CHECK((*out)[1].data[0] > 0);
}

TEST_CASE("example: edge_int8", "[interp]") {
  Example ex("edge_int8.mlir");
  WeightMap weights = makeWeights(*ex.module);
  auto out = interpret(ex.network, makeInputs(ex.network, 10), weights);
  if (!out)
    FAIL(llvm::toString(out.takeError()));
  REQUIRE(out->size() == 1);
  CHECK(shapeOf((*out)[0]) == Shape{1, 10});
  checkFinite((*out)[0]);
  checkSoftmaxRows((*out)[0]);

  // A missing weight is reported at the op that references it.
  weights.erase("classifier.fc2.bias");
  auto missing = interpret(ex.network, makeInputs(ex.network, 10), weights);
  bool succeeded = static_cast<bool>(missing);
  REQUIRE_FALSE(succeeded);
  CHECK(llvm::toString(missing.takeError()) ==
        repoRoot() + "/examples/edge_int8.mlir:59:11: external weight "
                     "'classifier.fc2.bias' is not in the weight map");
}
