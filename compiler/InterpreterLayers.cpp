//===- InterpreterLayers.cpp - the float layers of the interpreter --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// One straightforward loop nest per layer, all arithmetic in f64, sums
// accumulated in index order (see Interpreter.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/InterpreterImpl.h"
#include "dialect/MixOpsVerify.h"
#include "dialect/ResizeTap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::interp;

namespace {

/// Elementwise `fn(lhs, rhs)` with numpy broadcasting into `result`'s shape.
template <typename Fn>
RefTensor evalBroadcast(Value result, const RefTensor &a, const RefTensor &b,
                        Fn fn) {
  RefTensor y = zerosLike(result);
  size_t rank = y.shape.size();
  // Strides of an operand in the result's index space: 0 along broadcast
  // dimensions (size 1, or missing on the left).
  auto broadcastStrides = [&](const RefTensor &t) {
    SmallVector<int64_t> own = stridesOf(t.shape), out(rank, 0);
    size_t lead = rank - t.shape.size();
    for (size_t i = 0; i < t.shape.size(); ++i)
      out[lead + i] = t.shape[i] == 1 ? 0 : own[i];
    return out;
  };
  SmallVector<int64_t> sa = broadcastStrides(a), sb = broadcastStrides(b);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t flat = 0, n = y.numElements(); flat < n; ++flat) {
    int64_t ia = 0, ib = 0;
    for (size_t i = 0; i < rank; ++i) {
      ia += index[i] * sa[i];
      ib += index[i] * sb[i];
    }
    y.data[flat] = fn(a.data[ia], b.data[ib]);
    for (int64_t i = static_cast<int64_t>(rank) - 1; i >= 0; --i) {
      if (++index[i] < y.shape[i])
        break;
      index[i] = 0;
    }
  }
  return y;
}

/// The element of an attention mask ([S, S], [B, S, S] or [B, H, S, S],
/// dimensions of size 1 broadcast) for batch `b`, head `h`, query `i`, key
/// `j`.
double maskAt(const RefTensor &mask, int64_t b, int64_t h, int64_t i,
              int64_t j) {
  int64_t at[] = {b, h, i, j};
  auto rank = static_cast<int64_t>(mask.shape.size());
  int64_t index = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = mask.shape[d];
    index =
        index * size + (size == 1 ? 0 : at[checks::attentionMaskAxis(rank, d)]);
  }
  return mask.data[index];
}

/// Per head, softmax(Q K^T / sqrt(D) + mask) V on projected q, k, v [B, S, E]
/// (row-major, `rows` = B * S rows of E), into `ctx`.
void attentionCore(const std::vector<double> &q, const std::vector<double> &k,
                   const std::vector<double> &v, std::vector<double> &ctx,
                   int64_t batch, int64_t seq, int64_t e, int64_t heads,
                   bool causal, const RefTensor *mask) {
  int64_t d = e / heads;
  double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> scores(seq);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t hd = 0; hd < heads; ++hd)
      for (int64_t i = 0; i < seq; ++i) {
        // Causal: position i attends to j <= i only.
        int64_t keys = causal ? i + 1 : seq;
        const double *qi = q.data() + (b * seq + i) * e + hd * d;
        for (int64_t j = 0; j < keys; ++j) {
          const double *kj = k.data() + (b * seq + j) * e + hd * d;
          double dot = 0;
          for (int64_t t = 0; t < d; ++t)
            dot += qi[t] * kj[t];
          scores[j] = dot * scale;
          if (mask)
            scores[j] += maskAt(*mask, b, hd, i, j);
        }
        softmaxInPlace(scores.data(), keys, 1);
        double *out = ctx.data() + (b * seq + i) * e + hd * d;
        for (int64_t t = 0; t < d; ++t) {
          double sum = 0;
          for (int64_t j = 0; j < keys; ++j)
            sum += scores[j] * v[(b * seq + j) * e + hd * d + t];
          out[t] = sum;
        }
      }
}

/// Adds the bias [E] (if any) to each row of E values of `x`.
void addRowBias(std::vector<double> &x, const RefTensor *bias) {
  if (!bias)
    return;
  size_t e = bias->data.size();
  for (size_t i = 0; i < x.size(); ++i)
    x[i] += bias->data[i % e];
}

} // namespace

//===----------------------------------------------------------------------===//
// Contractions and convolutions
//===----------------------------------------------------------------------===//

RefTensor interp::evalDense(DenseOp op, const RefTensor &x, const RefTensor &w,
                            const RefTensor *bias) {
  RefTensor y = zerosLike(op.getResult());
  int64_t k = w.shape[0], n = w.shape[1];
  int64_t rows = product(ArrayRef<int64_t>(x.shape).drop_back());
  matmul(x.data.data(), w.data.data(), y.data.data(), rows, k, n);
  if (bias)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j)
        y.data[r * n + j] += bias->data[j];
  return y;
}

RefTensor interp::evalMatmul(MatmulOp op, const RefTensor &a,
                             const RefTensor &b) {
  RefTensor y = zerosLike(op.getResult());
  size_t rank = a.shape.size();
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  int64_t batch = product(ArrayRef<int64_t>(a.shape).drop_back(2));
  for (int64_t i = 0; i < batch; ++i)
    matmul(a.data.data() + i * m * k, b.data.data() + i * k * n,
           y.data.data() + i * m * n, m, k, n);
  return y;
}

RefTensor interp::evalConv2D(Conv2DOp op, const RefTensor &x,
                             const RefTensor &w, const RefTensor *bias) {
  RefTensor y = zerosLike(op.getResult());
  convolve<double>(
      op, x, w, y,
      [&](double &sum, int64_t xi, int64_t wi) {
        sum += x.data[xi] * w.data[wi];
      },
      [&](double sum, int64_t o) { return bias ? sum + bias->data[o] : sum; });
  return y;
}

//===----------------------------------------------------------------------===//
// Normalization, softmax, activations, elementwise
//===----------------------------------------------------------------------===//

RefTensor interp::evalBatchNorm(BatchNormOp op, const RefTensor &x,
                                const RefTensor &scale, const RefTensor &bias,
                                const RefTensor &mean,
                                const RefTensor &variance) {
  RefTensor y = zerosLike(op.getResult());
  double eps = op.getEpsilon().convertToDouble();
  int64_t c = x.shape[1];
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(2));
  int64_t outer = x.shape[0];
  for (int64_t n = 0; n < outer; ++n)
    for (int64_t ch = 0; ch < c; ++ch) {
      double denom = std::sqrt(variance.data[ch] + eps);
      for (int64_t i = 0; i < inner; ++i) {
        int64_t at = (n * c + ch) * inner + i;
        y.data[at] = scale.data[ch] * (x.data[at] - mean.data[ch]) / denom +
                     bias.data[ch];
      }
    }
  return y;
}

RefTensor interp::evalLayerNorm(LayerNormOp op, const RefTensor &x,
                                const RefTensor &gamma, const RefTensor &beta) {
  RefTensor y = zerosLike(op.getResult());
  double eps = op.getEpsilon().convertToDouble();
  // Rows of the trailing dimensions [axis, rank); gamma and beta have their
  // shape, so they are read with the row's flat index.
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += static_cast<int64_t>(x.shape.size());
  int64_t d = product(ArrayRef<int64_t>(x.shape).drop_front(axis));
  int64_t rows = d == 0 ? 0 : x.numElements() / d;
  for (int64_t r = 0; r < rows; ++r) {
    const double *in = x.data.data() + r * d;
    double mean = 0;
    for (int64_t i = 0; i < d; ++i)
      mean += in[i];
    mean /= static_cast<double>(d);
    // Biased variance (divide by D), as PyTorch's layer_norm; two passes.
    double var = 0;
    for (int64_t i = 0; i < d; ++i)
      var += (in[i] - mean) * (in[i] - mean);
    var /= static_cast<double>(d);
    double denom = std::sqrt(var + eps);
    for (int64_t i = 0; i < d; ++i)
      y.data[r * d + i] = (in[i] - mean) / denom * gamma.data[i] + beta.data[i];
  }
  return y;
}

RefTensor interp::evalSoftmax(SoftmaxOp op, const RefTensor &x) {
  RefTensor y = x;
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> shape = x.shape;
  int64_t outer = product(shape.take_front(axis));
  int64_t len = shape[axis];
  int64_t inner = product(shape.drop_front(axis + 1));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      softmaxInPlace(y.data.data() + o * len * inner + i, len, inner);
  return y;
}

RefTensor interp::evalRelu(const RefTensor &x) {
  RefTensor y = x;
  for (double &v : y.data)
    v = std::isnan(v) ? v : (v > 0 ? v : 0.0);
  return y;
}

RefTensor interp::evalGelu(GeluOp op, const RefTensor &x) {
  RefTensor y = x;
  if (op.getApproximate()) {
    const double c = std::sqrt(2.0 / llvm::numbers::pi);
    for (double &v : y.data)
      v = 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
  } else {
    for (double &v : y.data)
      v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
  }
  return y;
}

RefTensor interp::evalAdd(AddOp op, const RefTensor &a, const RefTensor &b) {
  return evalBroadcast(op.getResult(), a, b,
                       [](double x, double y) { return x + y; });
}

RefTensor interp::evalMul(MulOp op, const RefTensor &a, const RefTensor &b) {
  return evalBroadcast(op.getResult(), a, b,
                       [](double x, double y) { return x * y; });
}

//===----------------------------------------------------------------------===//
// Elementwise math
//===----------------------------------------------------------------------===//

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double hardSigmoid(double x, double alpha, double beta) {
  double y = alpha * x + beta;
  return std::isnan(y) ? y : std::max(0.0, std::min(1.0, y));
}
/// IEEE 754-2019 maximum and minimum, like the compiled arith.maximumf and
/// minimumf: NaN if either is NaN, and -0 < +0.
double maximum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::nan("");
  if (x == y)
    return std::signbit(x) ? y : x;
  return std::max(x, y);
}
double minimum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::nan("");
  if (x == y)
    return std::signbit(x) ? x : y;
  return std::min(x, y);
}

} // namespace

std::optional<RefTensor> interp::evalUnaryMath(Operation *op,
                                               const RefTensor &x) {
  std::function<double(double)> fn =
      llvm::TypeSwitch<Operation *, std::function<double(double)>>(op)
          .Case([](SigmoidOp) { return sigmoid; })
          .Case([](TanhOp) { return [](double v) { return std::tanh(v); }; })
          .Case([](HardSigmoidOp h) {
            double alpha = h.getAlpha().convertToDouble();
            double beta = h.getBeta().convertToDouble();
            return [=](double v) { return hardSigmoid(v, alpha, beta); };
          })
          .Case([](HardSwishOp) {
            return [](double v) { return v * hardSigmoid(v, 1.0 / 6, 0.5); };
          })
          .Case([](SiluOp) { return [](double v) { return v * sigmoid(v); }; })
          .Case([](LeakyReluOp l) {
            double alpha = l.getAlpha().convertToDouble();
            return [=](double v) { return v >= 0 ? v : alpha * v; };
          })
          .Case([](EluOp e) {
            double alpha = e.getAlpha().convertToDouble();
            return [=](double v) {
              return v > 0 ? v : alpha * (std::exp(v) - 1.0);
            };
          })
          .Case([](ClipOp c) {
            double lo = c.getMin().convertToDouble();
            double hi = c.getMax().convertToDouble();
            return [=](double v) { return minimum(maximum(v, lo), hi); };
          })
          .Case([](ExpOp) { return [](double v) { return std::exp(v); }; })
          .Case([](LogOp) { return [](double v) { return std::log(v); }; })
          .Case([](SqrtOp) { return [](double v) { return std::sqrt(v); }; })
          .Case([](RsqrtOp) {
            return [](double v) { return 1.0 / std::sqrt(v); };
          })
          .Case([](AbsOp) { return [](double v) { return std::fabs(v); }; })
          .Case([](NegOp) { return [](double v) { return -v; }; })
          .Case([](ErfOp) { return [](double v) { return std::erf(v); }; })
          .Case([](ReciprocalOp) { return [](double v) { return 1.0 / v; }; })
          .Case([](FloorOp) { return [](double v) { return std::floor(v); }; })
          .Case([](CeilOp) { return [](double v) { return std::ceil(v); }; })
          // Ties to even: nearbyint in the default rounding mode.
          .Case([](RoundOp) {
            return [](double v) { return std::nearbyint(v); };
          })
          .Case([](SignOp) {
            return [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : v; };
          })
          .Case([](SinOp) { return [](double v) { return std::sin(v); }; })
          .Case([](CosOp) { return [](double v) { return std::cos(v); }; })
          .Case([](TanOp) { return [](double v) { return std::tan(v); }; })
          .Case([](AsinOp) { return [](double v) { return std::asin(v); }; })
          .Case([](AcosOp) { return [](double v) { return std::acos(v); }; })
          .Case([](AtanOp) { return [](double v) { return std::atan(v); }; })
          .Case([](SinhOp) { return [](double v) { return std::sinh(v); }; })
          .Case([](CoshOp) { return [](double v) { return std::cosh(v); }; })
          .Case([](AsinhOp) { return [](double v) { return std::asinh(v); }; })
          .Case([](AcoshOp) { return [](double v) { return std::acosh(v); }; })
          .Case([](AtanhOp) { return [](double v) { return std::atanh(v); }; })
          .Default([](Operation *) { return nullptr; });
  if (!fn)
    return std::nullopt;
  RefTensor y = zerosLike(op->getResult(0));
  for (auto [out, in] : llvm::zip_equal(y.data, x.data))
    out = fn(in);
  return y;
}

std::optional<RefTensor>
interp::evalBinaryMath(Operation *op, const RefTensor &a, const RefTensor &b) {
  std::function<double(double, double)> fn =
      llvm::TypeSwitch<Operation *, std::function<double(double, double)>>(op)
          .Case([](SubOp) { return [](double x, double y) { return x - y; }; })
          .Case([](DivOp) { return [](double x, double y) { return x / y; }; })
          .Case([](PowOp) {
            return [](double x, double y) { return std::pow(x, y); };
          })
          .Case([](MaximumOp) { return maximum; })
          .Case([](MinimumOp) { return minimum; })
          .Default([](Operation *) { return nullptr; });
  if (!fn)
    return std::nullopt;
  return evalBroadcast(op->getResult(0), a, b, fn);
}

//===----------------------------------------------------------------------===//
// Pooling, shapes, lookups
//===----------------------------------------------------------------------===//

RefTensor interp::evalGlobalAvgPool(GlobalAvgPoolOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t hw = x.shape[2] * x.shape[3];
  for (int64_t nc = 0, e = x.shape[0] * x.shape[1]; nc < e; ++nc) {
    double sum = 0;
    for (int64_t i = 0; i < hw; ++i)
      sum += x.data[nc * hw + i];
    y.data[nc] = sum / static_cast<double>(hw);
  }
  return y;
}

RefTensor interp::evalMaxPool2D(MaxPool2DOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t h = x.shape[2], w = x.shape[3], oh = y.shape[2], ow = y.shape[3];
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(),
                    p = op.getPadding(), d = op.getDilations();
  for (int64_t nc = 0, e = x.shape[0] * x.shape[1]; nc < e; ++nc)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        // Padded cells (and, with ceil_mode, cells past the padding) are
        // skipped, so they never win; a window with no real cell (possible
        // with dilations) gives -inf, as the lowering's -inf padding. NaN
        // wins.
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t u = 0; u < k[0]; ++u) {
          int64_t row = i * s[0] - p[0] + u * d[0];
          if (row < 0 || row >= h)
            continue;
          for (int64_t v = 0; v < k[1]; ++v) {
            int64_t col = j * s[1] - p[1] + v * d[1];
            if (col < 0 || col >= w)
              continue;
            double value = x.data[(nc * h + row) * w + col];
            if (std::isnan(value) || value > mx)
              mx = value;
            if (std::isnan(mx))
              break;
          }
        }
        y.data[(nc * oh + i) * ow + j] = mx;
      }
  return y;
}

RefTensor interp::evalAvgPool2D(AvgPool2DOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t h = x.shape[2], w = x.shape[3], oh = y.shape[2], ow = y.shape[3];
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(),
                    p = op.getPadding();
  for (int64_t nc = 0, e = x.shape[0] * x.shape[1]; nc < e; ++nc)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double sum = 0;
        int64_t cells = 0;
        for (int64_t u = 0; u < k[0]; ++u)
          for (int64_t v = 0; v < k[1]; ++v) {
            int64_t row = i * s[0] - p[0] + u, col = j * s[1] - p[1] + v;
            if (row < 0 || row >= h || col < 0 || col >= w)
              continue;
            sum += x.data[(nc * h + row) * w + col];
            ++cells;
          }
        int64_t count = op.getCountIncludePad() ? k[0] * k[1] : cells;
        y.data[(nc * oh + i) * ow + j] = sum / static_cast<double>(count);
      }
  return y;
}

//===----------------------------------------------------------------------===//
// Data movement and reductions
//===----------------------------------------------------------------------===//

namespace {

/// Calls `fn(resultFlat, index)` for every element of `shape`, `index`
/// being its multi-dimensional index (row-major order).
template <typename Fn> void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(flat, ArrayRef<int64_t>(index));
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

int64_t flatIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> index) {
  int64_t flat = 0;
  for (auto [d, i] : llvm::zip_equal(shape, index))
    flat = flat * d + i;
  return flat;
}

} // namespace

RefTensor interp::evalTranspose(TransposeOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  ArrayRef<int64_t> perm = op.getPermutation();
  SmallVector<int64_t> source(perm.size());
  forEachIndex(y.shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    for (auto [i, p] : llvm::enumerate(perm))
      source[p] = index[i];
    y.data[flat] = x.data[flatIndex(x.shape, source)];
  });
  return y;
}

RefTensor interp::evalConcat(ConcatOp op, ArrayRef<const RefTensor *> inputs) {
  RefTensor y = zerosLike(op.getResult());
  int64_t rank = y.shape.size();
  int64_t axis = static_cast<int64_t>(op.getAxis()); // I64Attr: uint64_t
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> source;
  forEachIndex(y.shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    // The input holding position index[axis] along the axis.
    int64_t along = index[axis];
    for (const RefTensor *in : inputs) {
      if (along < in->shape[axis]) {
        source.assign(index.begin(), index.end());
        source[axis] = along;
        y.data[flat] = in->data[flatIndex(in->shape, source)];
        return;
      }
      along -= in->shape[axis];
    }
  });
  return y;
}

RefTensor interp::evalSlice(SliceOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t rank = y.shape.size();
  SmallVector<int64_t> start(rank, 0), step(rank, 1), source(rank);
  for (auto [axis, s, st] :
       llvm::zip_equal(op.getAxes(), op.getStarts(), op.getSteps())) {
    int64_t a = axis < 0 ? axis + rank : axis;
    start[a] = s;
    step[a] = st;
  }
  forEachIndex(y.shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    for (int64_t d = 0; d < rank; ++d)
      source[d] = start[d] + index[d] * step[d];
    y.data[flat] = x.data[flatIndex(x.shape, source)];
  });
  return y;
}

RefTensor interp::evalPad(PadOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t rank = y.shape.size();
  ArrayRef<int64_t> pads = op.getPads();
  StringRef mode = op.getMode();
  SmallVector<int64_t> source(rank);
  forEachIndex(y.shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    for (int64_t d = 0; d < rank; ++d) {
      int64_t s = index[d] - pads[d], n = x.shape[d];
      if (s < 0 || s >= n) {
        if (mode == "constant") {
          y.data[flat] = op.getValue().convertToDouble();
          return;
        }
        if (mode == "edge")
          s = s < 0 ? 0 : n - 1;
        else // reflect, mirrored around the edge element
          s = s < 0 ? -s : 2 * (n - 1) - s;
      }
      source[d] = s;
    }
    y.data[flat] = x.data[flatIndex(x.shape, source)];
  });
  return y;
}

RefTensor interp::evalArgExtremum(Operation *op, const RefTensor &x) {
  bool isMax = isa<ArgMaxOp>(op);
  int64_t axis = 0;
  bool last = false;
  if (auto a = dyn_cast<ArgMaxOp>(op)) {
    axis = int64_t(a.getAxis());
    last = a.getSelectLastIndex();
  } else {
    auto m = cast<ArgMinOp>(op);
    axis = int64_t(m.getAxis());
    last = m.getSelectLastIndex();
  }
  int64_t rank = int64_t(x.shape.size());
  if (axis < 0)
    axis += rank;
  RefTensor y = zerosLike(op->getResult(0));
  // Each slice scanned in index order, as the lowering: numpy's rule (NaN
  // is the extremum; its first, or with select_last_index its last).
  std::vector<double> best(y.data.size());
  std::vector<bool> seen(y.data.size(), false);
  SmallVector<int64_t> target;
  forEachIndex(x.shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    target.clear();
    for (auto [d, i] : llvm::enumerate(index)) {
      if (int64_t(d) != axis)
        target.push_back(i);
      else if (y.shape.size() == x.shape.size())
        target.push_back(0);
    }
    int64_t at = flatIndex(y.shape, target);
    double v = x.data[flat];
    bool take;
    if (!seen[at])
      take = true;
    else if (last)
      take = std::isnan(v) || (isMax ? v >= best[at] : v <= best[at]);
    else
      take = !std::isnan(best[at]) &&
             (std::isnan(v) || (isMax ? v > best[at] : v < best[at]));
    seen[at] = true;
    if (take) {
      best[at] = v;
      y.data[at] = double(index[axis]);
    }
  });
  return y;
}

RefTensor interp::evalReduce(Operation *op, ArrayRef<int64_t> axes,
                             const RefTensor &x) {
  RefTensor y = zerosLike(op->getResult(0));
  StringRef kind = op->getName().stripDialect();
  bool isMax = kind == "reduce_max", isMin = kind == "reduce_min",
       isProd = kind == "reduce_prod";
  double init = isMax    ? -std::numeric_limits<double>::infinity()
                : isMin  ? std::numeric_limits<double>::infinity()
                : isProd ? 1.0
                         : 0.0;
  std::fill(y.data.begin(), y.data.end(), init);
  // Result positions: the input index without (or with 0 at) the reduced
  // axes; the input is visited in index order.
  int64_t count = 1;
  for (int64_t a : axes)
    count *= x.shape[a];
  SmallVector<int64_t> target;
  forEachIndex(x.shape, [&](int64_t flat, ArrayRef<int64_t> index) {
    target.clear();
    for (auto [d, i] : llvm::enumerate(index)) {
      if (!llvm::is_contained(axes, int64_t(d)))
        target.push_back(i);
      else if (y.shape.size() == x.shape.size())
        target.push_back(0);
    }
    double &acc = y.data[flatIndex(y.shape, target)];
    double v = x.data[flat];
    if (isMax || isMin) {
      if (std::isnan(v) || std::isnan(acc))
        acc = std::nan("");
      else
        acc = isMax ? std::max(acc, v) : std::min(acc, v);
    } else if (isProd) {
      acc *= v;
    } else {
      acc += kind == "reduce_l2" ? v * v : v;
    }
  });
  for (double &v : y.data) {
    if (kind == "reduce_mean")
      v /= static_cast<double>(count);
    else if (kind == "reduce_l2")
      v = std::sqrt(v);
  }
  return y;
}

RefTensor interp::evalConvTranspose2D(ConvTranspose2DOp op, const RefTensor &x,
                                      const RefTensor &w,
                                      const RefTensor *bias) {
  RefTensor y = zerosLike(op.getResult());
  int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  int64_t fg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  int64_t f = y.shape[1], oh = y.shape[2], ow = y.shape[3];
  int64_t cg = c / static_cast<int64_t>(op.getGroups());
  ArrayRef<int64_t> s = op.getStrides(), d = op.getDilations(),
                    p = op.getPadding();
  // Scatter form: every input pixel adds input * weight to the outputs its
  // kernel taps reach (the definition; the compiled code gathers).
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < wd; ++j) {
          double v = x.data[((b * c + ci) * h + i) * wd + j];
          int64_t group = ci / cg;
          for (int64_t fo = 0; fo < fg; ++fo)
            for (int64_t u = 0; u < kh; ++u)
              for (int64_t t = 0; t < kw; ++t) {
                int64_t row = i * s[0] - p[0] + u * d[0];
                int64_t col = j * s[1] - p[1] + t * d[1];
                if (row < 0 || row >= oh || col < 0 || col >= ow)
                  continue;
                int64_t fout = group * fg + fo;
                y.data[((b * f + fout) * oh + row) * ow + col] +=
                    v * w.data[((ci * fg + fo) * kh + u) * kw + t];
              }
        }
  if (bias)
    for (int64_t b = 0; b < n; ++b)
      for (int64_t fo = 0; fo < f; ++fo)
        for (int64_t k = 0; k < oh * ow; ++k)
          y.data[(b * f + fo) * oh * ow + k] += bias->data[fo];
  return y;
}

RefTensor interp::evalResize(ResizeOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t h = x.shape[2], w = x.shape[3], oh = y.shape[2], ow = y.shape[3];
  for (int64_t nc = 0, e = x.shape[0] * x.shape[1]; nc < e; ++nc)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        ResizeTap ty = resizeTap(op, 0, i, h, oh),
                  tx = resizeTap(op, 1, j, w, ow);
        const double *plane = x.data.data() + nc * h * w;
        double &out = y.data[(nc * oh + i) * ow + j];
        if (op.getMode() == "nearest") {
          out = plane[ty.lo * w + tx.lo];
          continue;
        }
        if (op.getMode() == "cubic") {
          // As ONNX's reference: along the columns first, then the rows.
          ResizeCubicTap cy = resizeCubicTap(op, 0, i, h, oh),
                         cx = resizeCubicTap(op, 1, j, w, ow);
          double sum = 0;
          for (int a = 0; a < 4; ++a) {
            double row = 0;
            for (int b = 0; b < 4; ++b)
              row += cx.weight[b] * plane[cy.index[a] * w + cx.index[b]];
            sum += cy.weight[a] * row;
          }
          out = sum;
          continue;
        }
        double fy = ty.frac, fx = tx.frac;
        double top =
            plane[ty.lo * w + tx.lo] * (1 - fx) + plane[ty.lo * w + tx.hi] * fx;
        double bottom =
            plane[ty.hi * w + tx.lo] * (1 - fx) + plane[ty.hi * w + tx.hi] * fx;
        out = top * (1 - fy) + bottom * fy;
      }
  return y;
}

RefTensor interp::evalReshape(Operation *op, const RefTensor &x) {
  RefTensor y = zerosLike(op->getResult(0));
  y.data = x.data;
  return y;
}

llvm::Expected<RefTensor> interp::evalEmbedding(EmbeddingOp op,
                                                const RefTensor &indices,
                                                const RefTensor &table) {
  RefTensor y = zerosLike(op.getResult());
  int64_t vocab = table.shape[0], d = table.shape[1];
  for (auto [i, index] : llvm::enumerate(indices.data)) {
    std::optional<int64_t> row = indexIn(index, vocab);
    if (!row)
      return errorAt(op.getLoc(), "mix.embedding: index " + valueStr(index) +
                                      " at element " + llvm::Twine(i) +
                                      " is out of range [0, " +
                                      llvm::Twine(vocab) + ")");
    std::copy_n(table.data.begin() + *row * d, d, y.data.begin() + i * d);
  }
  return y;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

RefTensor interp::evalAttention(AttentionOp op, const RefTensor &x,
                                const AttentionOperands &w) {
  int64_t batch = x.shape[0], seq = x.shape[1], e = x.shape[2];
  int64_t rows = batch * seq;
  std::vector<double> q(rows * e), k(rows * e), v(rows * e), ctx(rows * e);
  matmul(x.data.data(), w.wq->data.data(), q.data(), rows, e, e);
  matmul(x.data.data(), w.wk->data.data(), k.data(), rows, e, e);
  matmul(x.data.data(), w.wv->data.data(), v.data(), rows, e, e);
  addRowBias(q, w.bq);
  addRowBias(k, w.bk);
  addRowBias(v, w.bv);
  attentionCore(q, k, v, ctx, batch, seq, e,
                static_cast<int64_t>(op.getNumHeads()), op.getCausal(), w.mask);
  RefTensor y = zerosLike(op.getResult());
  matmul(ctx.data(), w.wo->data.data(), y.data.data(), rows, e, e);
  addRowBias(y.data, w.bo);
  return y;
}

RefTensor interp::evalAttentionCore(AttentionCoreOp op, const RefTensor &q,
                                    const RefTensor &k, const RefTensor &v,
                                    const RefTensor *mask) {
  RefTensor y = zerosLike(op.getResult());
  attentionCore(q.data, k.data, v.data, y.data, q.shape[0], q.shape[1],
                q.shape[2], static_cast<int64_t>(op.getNumHeads()),
                op.getCausal(), mask);
  return y;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

RefTensor interp::evalMseLoss(const RefTensor &prediction,
                              const RefTensor &target) {
  double sum = 0;
  for (size_t i = 0; i < prediction.data.size(); ++i) {
    double diff = prediction.data[i] - target.data[i];
    sum += diff * diff;
  }
  RefTensor y;
  y.data = {sum / static_cast<double>(prediction.data.size())};
  return y;
}

llvm::Expected<RefTensor> interp::evalCrossEntropy(CrossEntropyLossOp op,
                                                   const RefTensor &logits,
                                                   const RefTensor &labels) {
  int64_t n = logits.shape[0], c = logits.shape[1];
  double total = 0;
  for (int64_t r = 0; r < n; ++r) {
    std::optional<int64_t> label = indexIn(labels.data[r], c);
    if (!label)
      return errorAt(op.getLoc(), "mix.cross_entropy_loss: label " +
                                      valueStr(labels.data[r]) + " of row " +
                                      llvm::Twine(r) + " is out of range [0, " +
                                      llvm::Twine(c) + ")");
    // -log_softmax(x)[label] = logsumexp(x) - x[label], max-subtracted.
    const double *row = logits.data.data() + r * c;
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < c; ++j)
      mx = std::isnan(row[j]) ? row[j] : std::max(mx, row[j]);
    double sum = 0;
    for (int64_t j = 0; j < c; ++j)
      sum += std::exp(row[j] - mx);
    total += mx + std::log(sum) - row[*label];
  }
  RefTensor y;
  y.data = {total / static_cast<double>(n)};
  return y;
}
