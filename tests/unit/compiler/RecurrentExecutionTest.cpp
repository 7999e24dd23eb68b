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
// glu: each element is a * (1 / (1 + exp(-b))) in f32: exp (inline code,
// mix-approximate-math: within 5.5 ulps = 11 u, u = 2^-24; the sum 1 + e
// damps it by e / (1 + e) < 1), the add, the division and the product (u
// each) give a result within 14 u = 2^-20.2 relative in the worst case;
// the inputs here stay within the asserted 2^-21 (1 + |value|); the f16
// layer rounds that f32 value once, so it lies within one f16 ulp of the
// exact value (half an ulp for the rounding, and the f32 error can carry it
// across at most one f16 rounding boundary).
//
// lstm: compiled (f32 and f16 layers) and interpreted against LstmReference
// below, a direct f64 transcription of ONNX's LSTM equations written for
// this test, over sequences of 1, 2 and 50 steps, with zero and non-zero
// initial states, forward, reverse and bidirectional, time- and batch-first.
// Inputs are multiples of 1/8 in [-4, 4], weights and biases multiples of
// 1/64 in [-1/8, 1/8], initial states multiples of 1/8 in [-1, 1]: all exact
// in f16, so the f16 layer (f16 inputs and weights, f32 accumulator and
// state) computes exactly what the f32 layer computes, then rounds its
// results once to f16.
// - interpreter vs reference: both f64; only the summation order of the gate
//   pre-activations differs (bias first or last): 1e-12.
// - f32: per step each gate sum of K = I + H + 2 terms (|term| <= 1/2) is
//   within K * 2^-24 * sum|term| < 2^-21 of the exact one, the
//   nonlinearities (inline approximations of exp and tanh within 5.5
//   ulps, mix-approximate-math; derivatives <= 1) and the state
//   update add a few ulps; the errors of h and c feed the next step through
//   f < 1 and sum|R| <= 1/2, so they stay within a small multiple of one
//   step's error over 50 steps. Every case here was within 2^-21 (4.8e-7,
//   times 1 + |value|) with libm's functions; the test allows 2^-18
//   (3.8e-6), a margin of 8 then.
// - f16: the f32 result rounded once to f16: the f32 tolerance plus one f16
//   ulp of the reference value.
//
// gru: likewise against GruReference (ONNX's GRU equations in f64), with
// linear_before_reset 0 and 1, and the same inputs and tolerances (its gate
// sums have at most I + H + 2 terms of the same bounds; h_t is a convex
// combination of h' and h_{t-1}, so errors do not grow faster than
// lstm's).
//
// int8 lstm and gru (mix-quantize unrolls them into integer GEMMs and f32
// gates): compiled against the interpreter of the quantized IR, which
// emulates the integer GEMMs exactly, within the f32 tolerance 2^-18 (the
// same f32 gate arithmetic around identical integer sums; a state rounded
// differently across a quantization boundary would show as a whole quantum,
// far beyond it), and against the f64 reference within kInt8Tolerance =
// 0.03, the worst case of one step: x is quantized with a scale <= 4/127
// (error <= 2/127), the weights per gate row with a scale <= (1/8)/127
// (error <= 1/2032), h with a scale <= 1/127 (error <= 1/254); the I = 3
// input terms then err by at most 3 (4/2032 + (1/8)(2/127)) = 0.0118 and
// the H = 4 recurrent terms by 4 (1/2032 + (1/8)(1/254)) = 0.0039, so a gate
// pre-activation by 0.016; sigmoid' <= 1/4 and tanh' <= 1 bound c's error
// by (1/4 + 1/4 + 1) 0.016 = 0.024 and h's by 0.028 for |c_{t-1}| <= 1.
// Over 50 steps the forget gate (< 1) and the mixing of rounding errors of
// both signs keep the measured worst error at 0.0024 (all cases below).
//
//===----------------------------------------------------------------------===//

#include "ExecutionTestUtil.h"
#include "JitUtil.h"

#include "mlir/Parser/Parser.h"

#include "llvm/ADT/APFloat.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

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

/// How far an int8 lstm or gru may be from the f64 reference; see the file
/// comment.
constexpr double kInt8Tolerance = 0.03;

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
      std::string in = f32TensorType(shape), res = f32TensorType(out);
      std::string source =
          std::string("mix.network @n precision(") + precision +
          ") (%x: " + in + ") -> " + res +
          " {\n  %y = mix.glu %x {axis = " + std::to_string(axis) +
          " : i64} : (" + in + ") -> " + res + "\n  mix.return %y : " + res +
          "\n}\n";
      INFO(source);
      // f16 glu: the policy warns (exp in f16); warnings do not fail.
      ExecutionResult r = runBoth(source, {x});
      REQUIRE(r.compiled.size() == 1);
      // Tolerances: see the file comment.
      checkClose(r.compiled[0], r.reference[0].data, std::ldexp(1.0, -21), f16);
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

namespace {

/// ONNX LSTM (default activations, no peepholes) in f64, written from the
/// operator's definition: gates i, o, f, c; Wb then Rb in b.
struct LstmReference {
  int64_t steps, batch, input, hidden, dirs;
  bool batchFirst, reverse;
  std::vector<double> x, w, r, b, h0, c0; // ONNX layouts; empty: absent
  std::vector<double> y, yh, yc;

  static double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

  void run() {
    int64_t hs = hidden;
    y.assign(steps * dirs * batch * hs, 0);
    yh.assign(dirs * batch * hs, 0);
    yc.assign(dirs * batch * hs, 0);
    for (int64_t d = 0; d < dirs; ++d) {
      // State [B][H] per direction.
      std::vector<double> hPrev(batch * hs, 0), cPrev(batch * hs, 0);
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < hs; ++j) {
          int64_t s =
              batchFirst ? (n * dirs + d) * hs + j : (d * batch + n) * hs + j;
          if (!h0.empty())
            hPrev[n * hs + j] = h0[s];
          if (!c0.empty())
            cPrev[n * hs + j] = c0[s];
        }
      for (int64_t k = 0; k < steps; ++k) {
        int64_t t = (reverse || d == 1) ? steps - 1 - k : k;
        std::vector<double> hNext(batch * hs), cNext(batch * hs);
        for (int64_t n = 0; n < batch; ++n) {
          auto pre = [&](int64_t gate, int64_t j) {
            int64_t row = gate * hs + j;
            double v = 0;
            if (!b.empty())
              v = b[d * 8 * hs + row] + b[d * 8 * hs + 4 * hs + row];
            for (int64_t i = 0; i < input; ++i) {
              double xv = batchFirst ? x[(n * steps + t) * input + i]
                                     : x[(t * batch + n) * input + i];
              v += xv * w[(d * 4 * hs + row) * input + i];
            }
            for (int64_t i = 0; i < hs; ++i)
              v += hPrev[n * hs + i] * r[(d * 4 * hs + row) * hs + i];
            return v;
          };
          for (int64_t j = 0; j < hs; ++j) {
            double it = sigmoid(pre(0, j)), ot = sigmoid(pre(1, j));
            double ft = sigmoid(pre(2, j)), ct = std::tanh(pre(3, j));
            double c = ft * cPrev[n * hs + j] + it * ct;
            cNext[n * hs + j] = c;
            hNext[n * hs + j] = ot * std::tanh(c);
          }
        }
        hPrev = hNext;
        cPrev = cNext;
        for (int64_t n = 0; n < batch; ++n)
          for (int64_t j = 0; j < hs; ++j) {
            int64_t at = batchFirst ? ((n * steps + t) * dirs + d) * hs + j
                                    : ((t * dirs + d) * batch + n) * hs + j;
            y[at] = hPrev[n * hs + j];
          }
      }
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < hs; ++j) {
          int64_t s =
              batchFirst ? (n * dirs + d) * hs + j : (d * batch + n) * hs + j;
          yh[s] = hPrev[n * hs + j];
          yc[s] = cPrev[n * hs + j];
        }
    }
  }
};

/// `n` multiples of 1/64 in [-1/8, 1/8] (exact in f16).
std::vector<float> smallWeights(int64_t n, unsigned seed) {
  std::vector<float> v = eighths(n, seed); // k/8, k in [-32, 32]
  for (float &x : v)
    x = std::round(x * 2) / 64; // k' / 64, k' in [-8, 8]
  return v;
}

/// The elements `v[at...]` of `shape` as a nested dense literal.
std::string nested(const std::vector<float> &v, size_t &at,
                   llvm::ArrayRef<int64_t> shape) {
  if (shape.empty()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9e", double(v[at++]));
    return buf;
  }
  std::string s = "[";
  for (int64_t i = 0; i < shape[0]; ++i)
    s += (i ? ", " : "") + nested(v, at, shape.drop_front());
  return s + "]";
}

std::string denseLiteral(const std::vector<float> &v,
                         const std::vector<int64_t> &shape) {
  size_t at = 0;
  return "dense<" + nested(v, at, shape) + ">";
}

std::string shapeType(const std::vector<int64_t> &shape) {
  return f32TensorType(shape);
}

/// The interpreter on `source` after mix-quantize: the integer GEMMs and
/// quantizations emulated exactly as compiled code computes them.
std::vector<RefTensor>
interpretQuantized(const std::string &source,
                   const std::vector<std::vector<float>> &inputs,
                   const std::vector<std::vector<int64_t>> &shapes) {
  Jit jit;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context);
  REQUIRE(module);
  OwningOpRef<ModuleOp> quantized = quantizedCopy(*module);
  std::vector<RefTensor> refInputs;
  for (auto [data, shape] : llvm::zip_equal(inputs, shapes))
    refInputs.push_back(
        RefTensor{{shape.begin(), shape.end()}, {data.begin(), data.end()}});
  auto out = interpret(*quantized->getOps<NetworkOp>().begin(), refInputs, {});
  if (!out)
    FAIL(llvm::toString(out.takeError()));
  return std::move(*out);
}

/// Compiles and interprets the recurrent network `source` and checks its
/// outputs against `expected` (the f64 reference of the layer): the
/// interpreter within 1e-12, the compiled f32 and f16 layers within the
/// file comment's tolerances; an int8 layer against the interpreter of its
/// quantized form (2^-18 relative: the same f32 gate arithmetic as the f32
/// layer, around exact integer GEMMs) and against the f64 reference within
/// kInt8Tolerance.
void checkRecurrent(const std::string &source,
                    const std::vector<std::vector<float>> &inputs,
                    const std::vector<std::vector<int64_t>> &shapes,
                    std::vector<const std::vector<double> *> expected,
                    const char *precision) {
  bool f16 = std::string(precision) == "f16";
  bool int8 = std::string(precision) == "int8";
  ExecutionResult result = runBoth(source, inputs);
  REQUIRE(result.compiled.size() == expected.size());
  std::vector<RefTensor> quantized;
  if (int8)
    quantized = interpretQuantized(source, inputs, shapes);
  double worst = 0;
  for (size_t o = 0; o < expected.size(); ++o) {
    INFO("output " << o);
    // The interpreter against the reference: both f64.
    const std::vector<double> &interp = result.reference[o].data;
    REQUIRE(interp.size() == expected[o]->size());
    for (size_t i = 0; i < interp.size(); ++i) {
      INFO("element " << i);
      CHECK(std::fabs(interp[i] - (*expected[o])[i]) <= 1e-12);
    }
    if (!int8) {
      // The compiled layer: see the file comment for the tolerances.
      checkClose(result.compiled[o], *expected[o], std::ldexp(1.0, -18), f16);
      continue;
    }
    checkClose(result.compiled[o], quantized[o].data, std::ldexp(1.0, -18),
               false);
    for (size_t i = 0; i < interp.size(); ++i) {
      double error = std::fabs(result.compiled[o][i] - (*expected[o])[i]);
      INFO("element " << i << ": int8 " << result.compiled[o][i]
                      << ", reference " << (*expected[o])[i]);
      CHECK(error <= kInt8Tolerance);
      worst = std::max(worst, error);
    }
  }
  // The layer was quantized: its results are not the float layer's.
  if (int8)
    CHECK(worst > 1e-5);
}

struct LstmCase {
  int64_t steps;
  const char *direction;
  int64_t layout;
  bool initial, bias;
};

/// Builds the network, runs it compiled and interpreted, and checks both
/// against LstmReference.
void checkLstm(const LstmCase &c, const char *precision) {
  const int64_t batch = 2, input = 3, hidden = 4;
  int64_t dirs = std::string(c.direction) == "bidirectional" ? 2 : 1;
  bool batchFirst = c.layout == 1;
  std::vector<int64_t> xShape =
      batchFirst ? std::vector<int64_t>{batch, c.steps, input}
                 : std::vector<int64_t>{c.steps, batch, input};
  std::vector<int64_t> stateShape =
      batchFirst ? std::vector<int64_t>{batch, dirs, hidden}
                 : std::vector<int64_t>{dirs, batch, hidden};
  std::vector<int64_t> yShape =
      batchFirst ? std::vector<int64_t>{batch, c.steps, dirs, hidden}
                 : std::vector<int64_t>{c.steps, dirs, batch, hidden};
  std::vector<int64_t> wShape = {dirs, 4 * hidden, input},
                       rShape = {dirs, 4 * hidden, hidden},
                       bShape = {dirs, 8 * hidden};
  std::vector<float> x = eighths(count(xShape), 3 + unsigned(c.steps));
  std::vector<float> w = smallWeights(count(wShape), 5);
  std::vector<float> r = smallWeights(count(rShape), 6);
  std::vector<float> b = smallWeights(count(bShape), 7);
  std::vector<float> h0 = eighths(count(stateShape), 8),
                     c0 = eighths(count(stateShape), 9);
  for (float &v : h0)
    v /= 4; // multiples of 1/8 in [-1, 1]
  for (float &v : c0)
    v /= 4;

  std::string xt = shapeType(xShape), st = shapeType(stateShape),
              yt = shapeType(yShape), wt = shapeType(wShape),
              rt = shapeType(rShape), bt = shapeType(bShape);
  std::string args = "%x: " + xt, operands = "%x, %w, %r",
              types = xt + ", " + wt + ", " + rt;
  if (c.bias) {
    operands += " b(%b)";
    types += ", " + bt;
  }
  if (c.initial) {
    args += ", %h0: " + st + ", %c0: " + st;
    operands += " initial_h(%h0) initial_c(%c0)";
    types += ", " + st + ", " + st;
  }
  std::string source =
      std::string("mix.network @n precision(") + precision + ") (" + args +
      ") -> (" + yt + ", " + st + ", " + st + ") {\n" + "  %w = mix.weight " +
      denseLiteral(w, wShape) + " : " + wt + "\n" + "  %r = mix.weight " +
      denseLiteral(r, rShape) + " : " + rt + "\n" +
      (c.bias
           ? "  %b = mix.weight " + denseLiteral(b, bShape) + " : " + bt + "\n"
           : std::string()) +
      "  %y:3 = mix.lstm " + operands + " {direction = \"" + c.direction +
      "\", layout = " + std::to_string(c.layout) + " : i64} : (" + types +
      ") -> (" + yt + ", " + st + ", " + st + ")\n" +
      "  mix.return %y#0, %y#1, %y#2 : " + yt + ", " + st + ", " + st + "\n}\n";
  INFO(source);

  LstmReference ref{c.steps,
                    batch,
                    input,
                    hidden,
                    dirs,
                    batchFirst,
                    std::string(c.direction) == "reverse"};
  ref.x.assign(x.begin(), x.end());
  ref.w.assign(w.begin(), w.end());
  ref.r.assign(r.begin(), r.end());
  if (c.bias)
    ref.b.assign(b.begin(), b.end());
  if (c.initial) {
    ref.h0.assign(h0.begin(), h0.end());
    ref.c0.assign(c0.begin(), c0.end());
  }
  ref.run();

  std::vector<std::vector<float>> inputs = {x};
  if (c.initial) {
    inputs.push_back(h0);
    inputs.push_back(c0);
  }
  std::vector<std::vector<int64_t>> shapes = {xShape};
  if (c.initial)
    shapes.insert(shapes.end(), {stateShape, stateShape});
  checkRecurrent(source, inputs, shapes, {&ref.y, &ref.yh, &ref.yc}, precision);
}

} // namespace

TEST_CASE("compiled lstm matches a hand-written f64 reference",
          "[exec][lstm]") {
  for (const char *precision : {"f32", "f16"})
    for (int64_t steps : {1, 2, 50})
      for (bool initial : {false, true})
        for (const char *direction : {"forward", "bidirectional"}) {
          INFO(precision << " steps " << steps << " initial " << initial << " "
                         << direction);
          checkLstm({steps, direction, 0, initial, true}, precision);
        }
}

TEST_CASE("compiled lstm: reverse, batch first, without bias", "[exec][lstm]") {
  for (const char *precision : {"f32", "f16"}) {
    checkLstm({7, "reverse", 0, true, true}, precision);
    checkLstm({7, "forward", 1, true, false}, precision);
    checkLstm({50, "bidirectional", 1, true, true}, precision);
    checkLstm({2, "reverse", 1, false, false}, precision);
  }
}

namespace {

/// ONNX GRU (default activations) in f64, written from the operator's
/// definition: gates z, r, h; Wb then Rb in b.
struct GruReference {
  int64_t steps, batch, input, hidden, dirs;
  bool batchFirst, reverse, linearBeforeReset;
  std::vector<double> x, w, r, b, h0;
  std::vector<double> y, yh;

  static double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

  void run() {
    int64_t hs = hidden;
    y.assign(steps * dirs * batch * hs, 0);
    yh.assign(dirs * batch * hs, 0);
    for (int64_t d = 0; d < dirs; ++d) {
      std::vector<double> hPrev(batch * hs, 0);
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < hs; ++j)
          if (!h0.empty())
            hPrev[n * hs + j] = h0[batchFirst ? (n * dirs + d) * hs + j
                                              : (d * batch + n) * hs + j];
      auto bias = [&](int64_t k) {
        return b.empty() ? 0.0 : b[d * 6 * hs + k];
      };
      for (int64_t k = 0; k < steps; ++k) {
        int64_t t = (reverse || d == 1) ? steps - 1 - k : k;
        std::vector<double> hNext(batch * hs);
        for (int64_t n = 0; n < batch; ++n) {
          auto xW = [&](int64_t row) {
            double v = 0;
            for (int64_t i = 0; i < input; ++i)
              v += (batchFirst ? x[(n * steps + t) * input + i]
                               : x[(t * batch + n) * input + i]) *
                   w[(d * 3 * hs + row) * input + i];
            return v;
          };
          auto vR = [&](int64_t row, const std::vector<double> &v) {
            double sum = 0;
            for (int64_t i = 0; i < hs; ++i)
              sum += v[i] * r[(d * 3 * hs + row) * hs + i];
            return sum;
          };
          std::vector<double> hp(hPrev.begin() + n * hs,
                                 hPrev.begin() + (n + 1) * hs);
          std::vector<double> z(hs), rt(hs), rh(hs);
          for (int64_t j = 0; j < hs; ++j) {
            z[j] = sigmoid(xW(j) + vR(j, hp) + bias(j) + bias(3 * hs + j));
            rt[j] = sigmoid(xW(hs + j) + vR(hs + j, hp) + bias(hs + j) +
                            bias(4 * hs + j));
            rh[j] = rt[j] * hp[j];
          }
          for (int64_t j = 0; j < hs; ++j) {
            int64_t row = 2 * hs + j;
            double ht =
                linearBeforeReset
                    ? std::tanh(xW(row) + bias(row) +
                                rt[j] * (vR(row, hp) + bias(3 * hs + row)))
                    : std::tanh(xW(row) + vR(row, rh) + bias(3 * hs + row) +
                                bias(row));
            hNext[n * hs + j] = (1 - z[j]) * ht + z[j] * hp[j];
          }
        }
        hPrev = hNext;
        for (int64_t n = 0; n < batch; ++n)
          for (int64_t j = 0; j < hs; ++j)
            y[batchFirst ? ((n * steps + t) * dirs + d) * hs + j
                         : ((t * dirs + d) * batch + n) * hs + j] =
                hPrev[n * hs + j];
      }
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < hs; ++j)
          yh[batchFirst ? (n * dirs + d) * hs + j : (d * batch + n) * hs + j] =
              hPrev[n * hs + j];
    }
  }
};

struct GruCase {
  int64_t steps;
  const char *direction;
  int64_t layout;
  bool initial, bias;
  int64_t linearBeforeReset;
};

void checkGru(const GruCase &c, const char *precision) {
  const int64_t batch = 2, input = 3, hidden = 4;
  int64_t dirs = std::string(c.direction) == "bidirectional" ? 2 : 1;
  bool batchFirst = c.layout == 1;
  std::vector<int64_t> xShape =
      batchFirst ? std::vector<int64_t>{batch, c.steps, input}
                 : std::vector<int64_t>{c.steps, batch, input};
  std::vector<int64_t> stateShape =
      batchFirst ? std::vector<int64_t>{batch, dirs, hidden}
                 : std::vector<int64_t>{dirs, batch, hidden};
  std::vector<int64_t> yShape =
      batchFirst ? std::vector<int64_t>{batch, c.steps, dirs, hidden}
                 : std::vector<int64_t>{c.steps, dirs, batch, hidden};
  std::vector<int64_t> wShape = {dirs, 3 * hidden, input},
                       rShape = {dirs, 3 * hidden, hidden},
                       bShape = {dirs, 6 * hidden};
  std::vector<float> x = eighths(count(xShape), 13 + unsigned(c.steps));
  std::vector<float> w = smallWeights(count(wShape), 15);
  std::vector<float> r = smallWeights(count(rShape), 16);
  std::vector<float> b = smallWeights(count(bShape), 17);
  std::vector<float> h0 = eighths(count(stateShape), 18);
  for (float &v : h0)
    v /= 4;
  std::string xt = f32TensorType(xShape), st = f32TensorType(stateShape),
              yt = f32TensorType(yShape), wt = f32TensorType(wShape),
              rt = f32TensorType(rShape), bt = f32TensorType(bShape);
  std::string args = "%x: " + xt, operands = "%x, %w, %r",
              types = xt + ", " + wt + ", " + rt;
  if (c.bias) {
    operands += " b(%b)";
    types += ", " + bt;
  }
  if (c.initial) {
    args += ", %h0: " + st;
    operands += " initial_h(%h0)";
    types += ", " + st;
  }
  std::string source =
      std::string("mix.network @n precision(") + precision + ") (" + args +
      ") -> (" + yt + ", " + st + ") {\n  %w = mix.weight " +
      denseLiteral(w, wShape) + " : " + wt + "\n  %r = mix.weight " +
      denseLiteral(r, rShape) + " : " + rt + "\n" +
      (c.bias
           ? "  %b = mix.weight " + denseLiteral(b, bShape) + " : " + bt + "\n"
           : std::string()) +
      "  %y:2 = mix.gru " + operands + " {direction = \"" + c.direction +
      "\", layout = " + std::to_string(c.layout) +
      " : i64, linear_before_reset = " + std::to_string(c.linearBeforeReset) +
      " : i64} : (" + types + ") -> (" + yt + ", " + st +
      ")\n  mix.return %y#0, %y#1 : " + yt + ", " + st + "\n}\n";
  INFO(source);

  GruReference ref{c.steps,
                   batch,
                   input,
                   hidden,
                   dirs,
                   batchFirst,
                   std::string(c.direction) == "reverse",
                   c.linearBeforeReset != 0};
  ref.x.assign(x.begin(), x.end());
  ref.w.assign(w.begin(), w.end());
  ref.r.assign(r.begin(), r.end());
  if (c.bias)
    ref.b.assign(b.begin(), b.end());
  if (c.initial)
    ref.h0.assign(h0.begin(), h0.end());
  ref.run();

  std::vector<std::vector<float>> inputs = {x};
  if (c.initial)
    inputs.push_back(h0);
  std::vector<std::vector<int64_t>> shapes = {xShape};
  if (c.initial)
    shapes.push_back(stateShape);
  checkRecurrent(source, inputs, shapes, {&ref.y, &ref.yh}, precision);
}

} // namespace

TEST_CASE("compiled gru matches a hand-written f64 reference", "[exec][gru]") {
  for (const char *precision : {"f32", "f16"})
    for (int64_t lbr : {0, 1})
      for (int64_t steps : {1, 2, 50})
        for (bool initial : {false, true})
          for (const char *direction : {"forward", "bidirectional"}) {
            INFO(precision << " lbr " << lbr << " steps " << steps
                           << " initial " << initial << " " << direction);
            checkGru({steps, direction, 0, initial, true, lbr}, precision);
          }
}

TEST_CASE("compiled gru: reverse, batch first, without bias", "[exec][gru]") {
  for (const char *precision : {"f32", "f16"})
    for (int64_t lbr : {0, 1}) {
      checkGru({7, "reverse", 0, true, true, lbr}, precision);
      checkGru({7, "forward", 1, true, false, lbr}, precision);
      checkGru({50, "bidirectional", 1, true, true, lbr}, precision);
    }
}

TEST_CASE("compiled int8 lstm: exact integer GEMMs, close to the f64 layer",
          "[exec][lstm][int8]") {
  for (int64_t steps : {1, 2, 50})
    for (bool initial : {false, true}) {
      INFO("steps " << steps << " initial " << initial);
      checkLstm({steps, "forward", 0, initial, true}, "int8");
    }
  checkLstm({50, "bidirectional", 1, true, true}, "int8");
  checkLstm({7, "reverse", 0, false, false}, "int8");
}

TEST_CASE("compiled int8 gru: exact integer GEMMs, close to the f64 layer",
          "[exec][gru][int8]") {
  for (int64_t lbr : {0, 1}) {
    for (int64_t steps : {1, 2, 50})
      for (bool initial : {false, true}) {
        INFO("lbr " << lbr << " steps " << steps << " initial " << initial);
        checkGru({steps, "forward", 0, initial, true, lbr}, "int8");
      }
    checkGru({50, "bidirectional", 1, true, true, lbr}, "int8");
    checkGru({7, "reverse", 0, false, false, lbr}, "int8");
  }
}
