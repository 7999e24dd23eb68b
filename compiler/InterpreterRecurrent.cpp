//===- InterpreterRecurrent.cpp - glu, lstm and gru in the interpreter ----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The gating and recurrent layers in the f64 interpreter: all arithmetic in
// f64, sums in index order (the compiled code's order).
//
//===----------------------------------------------------------------------===//

#include "compiler/InterpreterImpl.h"

#include <cmath>

using namespace mlir;
using namespace mix;
using namespace mix::interp;

namespace {
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
} // namespace

RefTensor interp::evalGlu(GluOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> shape = x.shape;
  int64_t outer = product(shape.take_front(axis));
  int64_t half = shape[axis] / 2;
  int64_t inner = product(shape.drop_front(axis + 1));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < half; ++k)
      for (int64_t i = 0; i < inner; ++i) {
        double a = x.data[(o * 2 * half + k) * inner + i];
        double b = x.data[(o * 2 * half + half + k) * inner + i];
        y.data[(o * half + k) * inner + i] = a * sigmoid(b);
      }
  return y;
}

/// The index of element (a, b, c) of a rank-3 tensor of `shape`.
static int64_t at3(ArrayRef<int64_t> shape, int64_t a, int64_t b, int64_t c) {
  return (a * shape[1] + b) * shape[2] + c;
}

std::vector<RefTensor> interp::evalLstm(LstmOp op, const RefTensor &x,
                                        const RefTensor &w, const RefTensor &r,
                                        const RefTensor *bias,
                                        const RefTensor *initialH,
                                        const RefTensor *initialC) {
  RefTensor y = zerosLike(op.getY()), yh = zerosLike(op.getYH()),
            yc = zerosLike(op.getYC());
  bool batchFirst = op.getLayout() == 1;
  int64_t dirs = op.getNumDirections(), h = op.getHiddenSize();
  int64_t steps = batchFirst ? x.shape[1] : x.shape[0];
  int64_t batch = batchFirst ? x.shape[0] : x.shape[1];
  int64_t in = x.shape[2];
  auto xAt = [&](int64_t t, int64_t n, int64_t k) {
    return x.data[batchFirst ? at3(x.shape, n, t, k) : at3(x.shape, t, n, k)];
  };
  // [D, B, H] (layout 0) or [B, D, H] (layout 1).
  auto stateIndex = [&](int64_t d, int64_t n, int64_t j) {
    return batchFirst ? (n * dirs + d) * h + j : (d * batch + n) * h + j;
  };
  auto yIndex = [&](int64_t t, int64_t d, int64_t n, int64_t j) {
    return batchFirst ? ((n * steps + t) * dirs + d) * h + j
                      : ((t * dirs + d) * batch + n) * h + j;
  };
  bool reverse = op.getDirection() == "reverse";
  for (int64_t d = 0; d < dirs; ++d) {
    bool backward = reverse || d == 1;
    std::vector<double> hs(batch * h, 0.0), cs(batch * h, 0.0);
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t j = 0; j < h; ++j) {
        if (initialH)
          hs[n * h + j] = initialH->data[stateIndex(d, n, j)];
        if (initialC)
          cs[n * h + j] = initialC->data[stateIndex(d, n, j)];
      }
    std::vector<double> gates(4 * h);
    for (int64_t step = 0; step < steps; ++step) {
      int64_t t = backward ? steps - 1 - step : step;
      std::vector<double> next(batch * h), nextC(batch * h);
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t g = 0; g < 4 * h; ++g) {
          double sum = 0;
          for (int64_t k = 0; k < in; ++k)
            sum += xAt(t, n, k) * w.data[at3(w.shape, d, g, k)];
          if (bias)
            sum +=
                bias->data[d * 8 * h + g] + bias->data[d * 8 * h + 4 * h + g];
          for (int64_t k = 0; k < h; ++k)
            sum += hs[n * h + k] * r.data[at3(r.shape, d, g, k)];
          gates[g] = sum;
        }
        // ONNX's gate order: i, o, f, c.
        for (int64_t j = 0; j < h; ++j) {
          double i = sigmoid(gates[j]), o = sigmoid(gates[h + j]);
          double f = sigmoid(gates[2 * h + j]), c = std::tanh(gates[3 * h + j]);
          double ct = f * cs[n * h + j] + i * c;
          nextC[n * h + j] = ct;
          next[n * h + j] = o * std::tanh(ct);
        }
      }
      hs = std::move(next);
      cs = std::move(nextC);
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < h; ++j)
          y.data[yIndex(t, d, n, j)] = hs[n * h + j];
    }
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t j = 0; j < h; ++j) {
        yh.data[stateIndex(d, n, j)] = hs[n * h + j];
        yc.data[stateIndex(d, n, j)] = cs[n * h + j];
      }
  }
  return {std::move(y), std::move(yh), std::move(yc)};
}

std::vector<RefTensor> interp::evalGru(GruOp op, const RefTensor &x,
                                       const RefTensor &w, const RefTensor &r,
                                       const RefTensor *bias,
                                       const RefTensor *initialH) {
  RefTensor y = zerosLike(op.getY()), yh = zerosLike(op.getYH());
  bool batchFirst = op.getLayout() == 1;
  bool linearBeforeReset = op.getLinearBeforeReset() != 0;
  int64_t dirs = op.getNumDirections(), h = op.getHiddenSize();
  int64_t steps = batchFirst ? x.shape[1] : x.shape[0];
  int64_t batch = batchFirst ? x.shape[0] : x.shape[1];
  int64_t in = x.shape[2];
  auto xAt = [&](int64_t t, int64_t n, int64_t k) {
    return x.data[batchFirst ? at3(x.shape, n, t, k) : at3(x.shape, t, n, k)];
  };
  auto stateIndex = [&](int64_t d, int64_t n, int64_t j) {
    return batchFirst ? (n * dirs + d) * h + j : (d * batch + n) * h + j;
  };
  auto yIndex = [&](int64_t t, int64_t d, int64_t n, int64_t j) {
    return batchFirst ? ((n * steps + t) * dirs + d) * h + j
                      : ((t * dirs + d) * batch + n) * h + j;
  };
  auto wb = [&](int64_t d, int64_t g) {
    return bias ? bias->data[d * 6 * h + g] : 0.0;
  };
  auto rb = [&](int64_t d, int64_t g) {
    return bias ? bias->data[d * 6 * h + 3 * h + g] : 0.0;
  };
  bool reverse = op.getDirection() == "reverse";
  for (int64_t d = 0; d < dirs; ++d) {
    bool backward = reverse || d == 1;
    std::vector<double> hs(batch * h, 0.0);
    if (initialH)
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < h; ++j)
          hs[n * h + j] = initialH->data[stateIndex(d, n, j)];
    for (int64_t step = 0; step < steps; ++step) {
      int64_t t = backward ? steps - 1 - step : step;
      std::vector<double> next(batch * h);
      for (int64_t n = 0; n < batch; ++n) {
        const double *hp = hs.data() + n * h;
        // x_t W^T for row g.
        auto xw = [&](int64_t g) {
          double sum = 0;
          for (int64_t k = 0; k < in; ++k)
            sum += xAt(t, n, k) * w.data[at3(w.shape, d, g, k)];
          return sum;
        };
        // v R^T for row g.
        auto rec = [&](int64_t g, const double *v) {
          double sum = 0;
          for (int64_t k = 0; k < h; ++k)
            sum += v[k] * r.data[at3(r.shape, d, g, k)];
          return sum;
        };
        std::vector<double> z(h), reset(h), gated(h);
        for (int64_t j = 0; j < h; ++j) {
          z[j] = sigmoid(xw(j) + rec(j, hp) + wb(d, j) + rb(d, j));
          reset[j] =
              sigmoid(xw(h + j) + rec(h + j, hp) + wb(d, h + j) + rb(d, h + j));
          gated[j] = reset[j] * hp[j];
        }
        for (int64_t j = 0; j < h; ++j) {
          int64_t g = 2 * h + j;
          double candidate = linearBeforeReset
                                 ? std::tanh(xw(g) + wb(d, g) +
                                             reset[j] * (rec(g, hp) + rb(d, g)))
                                 : std::tanh(xw(g) + rec(g, gated.data()) +
                                             rb(d, g) + wb(d, g));
          next[n * h + j] = (1 - z[j]) * candidate + z[j] * hp[j];
        }
      }
      hs = std::move(next);
      for (int64_t n = 0; n < batch; ++n)
        for (int64_t j = 0; j < h; ++j)
          y.data[yIndex(t, d, n, j)] = hs[n * h + j];
    }
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t j = 0; j < h; ++j)
        yh.data[stateIndex(d, n, j)] = hs[n * h + j];
  }
  return {std::move(y), std::move(yh)};
}
