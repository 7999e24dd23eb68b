//===- InterpreterLayersTest.cpp - every layer in the interpreter ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Every layer against hand-computed values. Inputs are chosen so that results
// are exact in f64 and compared with ==; where exp, log, tanh, erf or sqrt of
// a non-square are involved, values are compared with a relative tolerance
// of 1e-12 (libm's results are within an ulp or two; the interpreter and the
// expected value may evaluate the expression in a different order).
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

using namespace mlir;
using namespace mix;
using namespace mix::test;

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

TEST_CASE("reduce_prod: products over axes, 1 over none, NaN from 0 * inf",
          "[interp]") {
  Model m(unary("tensor<2x3xf32>", "tensor<2x1xf32>",
                "  %y = mix.reduce_prod %x {axes = array<i64: -1>} : "
                "(tensor<2x3xf32>) -> tensor<2x1xf32>"));
  CHECK(m.ok({tensor({2, 3}, {1.5, -2, 4, 0.1, 10, -3})})[0].data ==
        std::vector<double>{-12, 0.1 * 10 * -3});
  auto special = m.ok({tensor({2, 3}, {0, kInf, 1, -kInf, 2, -1})})[0].data;
  CHECK(std::isnan(special[0]));
  CHECK(special[1] == kInf);
  // Every axis, keepdims false; and an empty axis: the empty product.
  Model all(unary("tensor<2x3xf32>", "tensor<f32>",
                  "  %y = mix.reduce_prod %x {keepdims = false} : "
                  "(tensor<2x3xf32>) -> tensor<f32>"));
  CHECK(all.ok({tensor({2, 3}, {1, 2, 3, 4, 5, 6})})[0].data ==
        std::vector<double>{720});
  Model empty(unary("tensor<2x0xf32>", "tensor<2x1xf32>",
                    "  %y = mix.reduce_prod %x {axes = array<i64: 1>} : "
                    "(tensor<2x0xf32>) -> tensor<2x1xf32>"));
  CHECK(empty.ok({tensor({2, 0}, {})})[0].data == std::vector<double>{1, 1});
}

TEST_CASE("gather by run-time indices: negative ones from the end, out of "
          "range an error",
          "[interp]") {
  const char *source = R"mlir(
mix.network @net precision(f32) (%x: tensor<2x3xf32>, %ids: tensor<2x2xi64>) -> tensor<2x2x2xf32> {
  %y = mix.gather %x, %ids {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
  mix.return %y : tensor<2x2x2xf32>
}
)mlir";
  Model m(source);
  RefTensor x = tensor({2, 3}, {0, 1, 2, 10, 11, 12});
  auto out = m.ok({x, tensor({2, 2}, {2, -1, -3, 1})});
  CHECK(shapeOf(out[0]) == Shape{2, 2, 2});
  // y[b, i, j] = x[b, ids[i, j]], -1 the last column, -3 the first.
  CHECK(out[0].data == std::vector<double>{2, 2, 0, 1, 12, 12, 10, 11});
  CHECK(m.error({x, tensor({2, 2}, {0, 3, 1, 1})}) ==
        "test.mlir:3:8: mix.gather: index 3 at element 1 is out of range "
        "[-3, 3) along axis 1");
  CHECK(m.error({x, tensor({2, 2}, {0, 1, -4, 1})}) ==
        "test.mlir:3:8: mix.gather: index -4 at element 2 is out of range "
        "[-3, 3) along axis 1");
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
