//===- DifferentiateTest.cpp - gradient rules against finite differences --===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mix-differentiate builds `@<name>_grad`; these tests check every gradient
// rule it emits against central finite differences of the forward network,
// both run by the f64 interpreter, on networks of random shapes, and the
// compiled f32 gradient network against the interpreted one.
//
// Finite differences: for each weight element w, (L(w + h) - L(w - h)) / 2h
// with h = 2^-17 (exact to add to the weights, multiples of 1/64 near 1).
// Its truncation error is h^2 / 6 * |L'''| (< 1e-11 here: the networks are
// smooth compositions with |L'''| of order 1-100 at these inputs), and its
// rounding error is about 2^-52 * |L| / h (< 1e-10 for |L| < 100). The test
// allows 1e-7 * max(1, |gradient|), a margin of 1000 over both, and small
// enough that a wrong rule (a missing factor, a wrong transpose, a missing
// broadcast sum) fails: those change gradients by O(|gradient|). Inputs and
// weights are drawn so that no relu / leaky_relu input lies within 1e-3 of
// its kink (where finite differences would straddle it).
//
// The loss scale multiplies every gradient: with loss_scale = 8 in f64 the
// gradients are exactly 8 times those with loss_scale = 1 (a power of two).
//
// Compiled f32 against the interpreter: every gradient here is a sum of at
// most 64 products of values below 16 in magnitude, passed through at most
// six ops in sequence, each within a few f32 ulps: well within
// 2^-14 (6.1e-5) relative to 1 + |gradient|, the bound checked.
//
//===----------------------------------------------------------------------===//

#include "ExecutionTestUtil.h"

#include "passes/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

std::string ty(const std::vector<int64_t> &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

/// A forward network with external weights and its gradient network.
struct Differentiated {
  explicit Differentiated(const std::string &source) : model(source) {
    PassManager pm(&model.context);
    pm.addPass(createMixDifferentiatePass());
    std::string diagnostics;
    {
      ScopedDiagnosticHandler handler(&model.context, [&](Diagnostic &d) {
        diagnostics += d.str() + "\n";
        return success();
      });
      succeeded = mlir::succeeded(pm.run(*model.module));
    }
    INFO(diagnostics);
    REQUIRE(succeeded);
    auto networks = model.module->getOps<NetworkOp>();
    forward = *networks.begin();
    grad = *std::next(networks.begin());
    REQUIRE(grad.getSymName() == (forward.getSymName() + "_grad").str());
  }

  double loss(const std::vector<RefTensor> &inputs, const WeightMap &weights) {
    auto out = interpret(forward, inputs, weights);
    if (!out)
      FAIL(llvm::toString(out.takeError()));
    return out->back().data[0];
  }

  /// The gradient outputs by name ("loss", "grad.<weight>").
  std::map<std::string, RefTensor> gradients(std::vector<RefTensor> inputs,
                                             const WeightMap &weights,
                                             double scale = 1.0) {
    RefTensor s;
    s.data = {scale};
    inputs.push_back(s);
    auto out = interpret(grad, inputs, weights);
    if (!out)
      FAIL(llvm::toString(out.takeError()));
    std::map<std::string, RefTensor> named;
    for (auto [i, t] : llvm::enumerate(*out))
      named[grad.getResultAttrOfType<StringAttr>(i, "mix.name").str()] = t;
    return named;
  }

  Model model;
  bool succeeded = false;
  NetworkOp forward, grad;
};

/// Values in [-1, 1] that are multiples of 1/64 and at least 1/64 away
/// from 0.
std::vector<double> values(int64_t n, std::mt19937 &rng) {
  std::uniform_int_distribution<int> k(1, 64);
  std::bernoulli_distribution sign(0.5);
  std::vector<double> v(n);
  for (double &x : v)
    x = (sign(rng) ? 1 : -1) * k(rng) / 64.0;
  return v;
}

RefTensor random(const std::vector<int64_t> &shape, std::mt19937 &rng) {
  RefTensor t;
  t.shape.assign(shape.begin(), shape.end());
  t.data = values(count(shape), rng);
  return t;
}

/// Checks every weight's gradient against central differences, and the
/// loss scale.
void checkAgainstFiniteDifferences(Differentiated &d,
                                   const std::vector<RefTensor> &inputs,
                                   WeightMap weights) {
  auto g = d.gradients(inputs, weights);
  auto g8 = d.gradients(inputs, weights, 8.0);
  CHECK(g.at("loss").data[0] == d.loss(inputs, weights));
  const double h = std::ldexp(1.0, -17);
  unsigned checked = 0;
  for (auto &entry : weights) {
    std::string name = ("grad." + entry.getKey()).str();
    INFO("weight " << entry.getKey().str());
    REQUIRE(g.count(name));
    const RefTensor &gw = g.at(name);
    REQUIRE(gw.data.size() == entry.getValue().data.size());
    for (size_t i = 0; i < gw.data.size(); ++i) {
      double saved = entry.getValue().data[i];
      entry.getValue().data[i] = saved + h;
      double up = d.loss(inputs, weights);
      entry.getValue().data[i] = saved - h;
      double down = d.loss(inputs, weights);
      entry.getValue().data[i] = saved;
      double fd = (up - down) / (2 * h);
      INFO("element " << i << ": gradient " << gw.data[i]
                      << ", finite difference " << fd);
      CHECK(std::fabs(gw.data[i] - fd) <=
            1e-7 * std::max(1.0, std::fabs(gw.data[i])));
      CHECK(g8.at(name).data[i] == 8 * gw.data[i]);
      ++checked;
    }
  }
  CHECK(checked > 0);
}

} // namespace

TEST_CASE("mix-differentiate: an MLP with a cross-entropy loss, random shapes",
          "[differentiate]") {
  std::mt19937 rng(20261203);
  for (int trial = 0; trial < 6; ++trial) {
    std::uniform_int_distribution<int64_t> dim(1, 6);
    int64_t n = dim(rng), k = dim(rng), hidden = dim(rng), c = dim(rng) + 1;
    INFO("n=" << n << " k=" << k << " hidden=" << hidden << " c=" << c);
    std::string source =
        "mix.network @mlp precision(f32) (%x: " + ty({n, k}) +
        ", %labels: tensor<" + std::to_string(n) +
        "xi32>) -> tensor<f32> {\n"
        "  %h = mix.block @hidden precision(f16) (%a = %x) : (" +
        ty({n, k}) + ") -> " + ty({n, hidden}) +
        " {\n"
        "    %w1 = mix.weight external \"w1\" : " +
        ty({k, hidden}) +
        "\n"
        "    %b1 = mix.weight external \"b1\" : " +
        ty({hidden}) +
        "\n"
        "    %d = mix.dense %a, %w1, %b1 : (" +
        ty({n, k}) + ", " + ty({k, hidden}) + ", " + ty({hidden}) + ") -> " +
        ty({n, hidden}) +
        "\n"
        "    %r = mix.relu %d : (" +
        ty({n, hidden}) + ") -> " + ty({n, hidden}) +
        "\n"
        "    mix.yield %r : " +
        ty({n, hidden}) +
        "\n  }\n"
        "  %w2 = mix.weight external \"w2\" : " +
        ty({hidden, c}) +
        "\n"
        "  %z = mix.dense %h, %w2 : (" +
        ty({n, hidden}) + ", " + ty({hidden, c}) + ") -> " + ty({n, c}) +
        "\n"
        "  %l = mix.cross_entropy_loss %z, %labels : (" +
        ty({n, c}) + ", tensor<" + std::to_string(n) +
        "xi32>) -> tensor<f32>\n"
        "  mix.return %l : tensor<f32>\n}\n";
    Differentiated d(source);
    // Inputs and w1 are multiples of 1/8, so x w1 is a multiple of 1/64;
    // b1 is a multiple of 1/64 plus 1/128: every relu input is at least
    // 1/128 away from 0.
    WeightMap weights;
    weights["w1"] = random({k, hidden}, rng);
    for (double &v : weights["w1"].data)
      v = std::round(v * 8) / 8;
    weights["b1"] = random({hidden}, rng);
    for (double &v : weights["b1"].data)
      v += 1.0 / 128;
    weights["w2"] = random({hidden, c}, rng);
    RefTensor x = random({n, k}, rng);
    for (double &v : x.data)
      v = std::round(v * 8) / 8;
    RefTensor labels;
    labels.shape = {n};
    std::uniform_int_distribution<int> label(0, int(c - 1));
    for (int64_t i = 0; i < n; ++i)
      labels.data.push_back(label(rng));
    checkAgainstFiniteDifferences(d, {x, labels}, weights);
  }
}

TEST_CASE("mix-differentiate: elementwise layers with broadcasting, mse loss",
          "[differentiate]") {
  std::mt19937 rng(7);
  std::string t34 = ty({3, 4}), t4 = ty({4}), t31 = ty({3, 1});
  auto un = [&](const char *op, const char *in, const char *out,
                const char *attrs = "") {
    return std::string("  %") + out + " = mix." + op + " %" + in + attrs +
           " : (" + t34 + ") -> " + t34 + "\n";
  };
  auto bin = [&](const char *op, const char *a, const char *b, const char *out,
                 const std::string &ta, const std::string &tb) {
    return std::string("  %") + out + " = mix." + op + " %" + a + ", %" + b +
           " : (" + ta + ", " + tb + ") -> " + t34 + "\n";
  };
  std::string source =
      "mix.network @ew precision(f32) (%x: " + t34 + ", %t: " + t34 +
      ") -> tensor<f32> {\n"
      "  %a = mix.weight external \"a\" : " +
      t4 +
      "\n"
      "  %c = mix.weight external \"c\" : " +
      t31 +
      "\n"
      "  %e = mix.weight external \"e\" : " +
      t34 + "\n" + bin("mul", "x", "a", "m", t34, t4) +
      bin("add", "m", "c", "s", t34, t31) + un("sigmoid", "s", "u1") +
      un("tanh", "s", "u2") + un("gelu", "s", "u3") + un("silu", "s", "u4") +
      un("leaky_relu", "s", "u5", " {alpha = 0.25 : f64}") +
      bin("sub", "u1", "u2", "v1", t34, t34) +
      bin("mul", "v1", "u3", "v2", t34, t34) +
      bin("add", "v2", "u4", "v3", t34, t34) +
      bin("sub", "v3", "u5", "v4", t34, t34) + un("exp", "u1", "u6") +
      bin("div", "v4", "u6", "v5", t34, t34) +
      bin("div", "e", "u6", "v6", t34, t34) +
      bin("add", "v5", "v6", "v7", t34, t34) + "  %n = mix.neg %v7 : (" + t34 +
      ") -> " + t34 + "\n" + "  %l = mix.mse_loss %n, %t : (" + t34 + ", " +
      t34 + ") -> tensor<f32>\n  mix.return %l : tensor<f32>\n}\n";
  Differentiated d(source);
  WeightMap weights;
  weights["a"] = random({4}, rng);
  weights["c"] = random({3, 1}, rng);
  weights["e"] = random({3, 4}, rng);
  // leaky_relu's kink: x * a + c must stay away from 0; with x and a
  // multiples of 1/8 and c = 1/128 + a multiple of 1/64 it does.
  for (double &v : weights["a"].data)
    v = std::round(v * 8) / 8;
  for (double &v : weights["c"].data)
    v = std::round(v * 64) / 64 + 1.0 / 128;
  RefTensor x = random({3, 4}, rng);
  for (double &v : x.data)
    v = std::round(v * 8) / 8;
  checkAgainstFiniteDifferences(d, {x, random({3, 4}, rng)}, weights);
}

TEST_CASE("mix-differentiate: matmul, transpose, softmax, layer_norm, "
          "reductions",
          "[differentiate]") {
  std::mt19937 rng(11);
  std::string source = R"(
mix.network @attn precision(f32) (%x: tensor<2x3x4xf32>, %t: tensor<2x4xf32>) -> tensor<f32> {
  %blk = mix.block @core precision(f16) (%in = %x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %wq = mix.weight external "wq" : tensor<4x4xf32>
    %q = mix.dense %in, %wq : (tensor<2x3x4xf32>, tensor<4x4xf32>) -> tensor<2x3x4xf32>
    %kt = mix.transpose %in {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
    %s = mix.matmul %q, %kt : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
    %p = mix.softmax %s : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %o = mix.matmul %p, %q : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    mix.yield %o : tensor<2x3x4xf32>
  }
  %g = mix.weight external "gamma" : tensor<4xf32>
  %b = mix.weight external "beta" : tensor<4xf32>
  %n = mix.layer_norm %blk, %g, %b : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %ls = mix.log_softmax %n {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %r = mix.reduce_mean %ls {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %r4 = mix.reshape %n : (tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32>
  %gp = mix.global_avg_pool %r4 : (tensor<2x3x2x2xf32>) -> tensor<2x3xf32>
  %gs = mix.reduce_sum %gp {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %e = mix.expand %gs : (tensor<2x1xf32>) -> tensor<2x4xf32>
  %sum = mix.add %r, %e : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %l = mix.mse_loss %sum, %t : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
)";
  Differentiated d(source);
  WeightMap weights;
  weights["wq"] = random({4, 4}, rng);
  weights["gamma"] = random({4}, rng);
  weights["beta"] = random({4}, rng);
  checkAgainstFiniteDifferences(
      d, {random({2, 3, 4}, rng), random({2, 4}, rng)}, weights);
}

TEST_CASE("mix-differentiate: compiled f32 gradients match the interpreter",
          "[differentiate]") {
  // Inline weights, so that the compiled network has them.
  std::string source = R"(
mix.network @fit precision(f32) (%x: tensor<4x3xf32>, %t: tensor<4x2xf32>) -> tensor<f32> {
  %h = mix.block @body precision(f32) (%a = %x) : (tensor<4x3xf32>) -> tensor<4x2xf32> {
    %w = mix.weight dense<[[0.5, -0.25], [0.125, 0.75], [-1.0, 0.375]]> : tensor<3x2xf32>
    %b = mix.weight dense<[0.0625, -0.5]> : tensor<2xf32>
    %y = mix.dense %a, %w, %b : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
    %s = mix.tanh %y : (tensor<4x2xf32>) -> tensor<4x2xf32>
    mix.yield %s : tensor<4x2xf32>
  }
  %l = mix.mse_loss %h, %t : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
)";
  Differentiated d(source);
  // The gradient network alone, as mixc would compile it.
  d.forward.erase();
  std::string text;
  llvm::raw_string_ostream os(text);
  d.grad.print(os);
  std::vector<float> x = eighths(12, 1), t = eighths(8, 2);
  ExecutionResult r = runBoth(text, {x, t, {4.0f}});
  REQUIRE(r.compiled.size() == 3);
  for (size_t o = 0; o < 3; ++o)
    for (size_t i = 0; i < r.compiled[o].size(); ++i) {
      double want = r.reference[o].data[i];
      INFO("output " << o << " element " << i << ": compiled "
                     << r.compiled[o][i] << ", interpreter " << want);
      CHECK(std::fabs(r.compiled[o][i] - want) <=
            std::ldexp(1.0, -14) * (1 + std::fabs(want)));
    }
}
