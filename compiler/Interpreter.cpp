//===- Interpreter.cpp - f64 reference interpreter of the mix dialect -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A deliberately simple interpreter: one straightforward loop nest per op,
// all arithmetic in f64, sums accumulated in index order. It favours being
// obviously right over being fast; tests use it on small models.
//
//===----------------------------------------------------------------------===//

#include "compiler/Interpreter.h"
#include "compiler/ModelLoader.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mix;

int64_t RefTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double mix::roundToType(double value, FloatType type) {
  if (type.isF64())
    return value;
  llvm::APFloat x(value);
  bool losesInfo = false;
  // One RNE rounding from the double straight to the target format. An
  // overflow gives +-inf (IEEE), NaN stays NaN with its sign; the status
  // (inexact, overflow, invalid for signaling NaNs) is not needed here.
  (void)x.convert(type.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                  &losesInfo);
  // Every value of a narrower format is exact in f64.
  (void)x.convert(llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return x.convertToDouble();
}

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Formats a type as MLIR prints it.
std::string typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// Formats a value readably: integers in full (`70000`, `-1`), other values
/// with the fewest digits that read back as the same double (`2.5`, `0.1`,
/// `1e+300`, `inf`, `nan`).
std::string valueStr(double v) {
  if (std::trunc(v) == v && std::abs(v) < 0x1p53)
    return std::to_string(static_cast<int64_t>(v));
  std::string s;
  for (int digits = 1; digits <= 17; ++digits) {
    s = llvm::formatv("{0}", llvm::format("%.*g", digits, v)).str();
    if (std::isnan(v) || std::strtod(s.c_str(), nullptr) == v)
      break;
  }
  return s;
}

/// An error `file:line:col: message` at `loc`.
llvm::Error errorAt(Location loc, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 formatLocation(loc) + ": " + message.str());
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

/// A zero-filled tensor of `v`'s static shape.
RefTensor zerosLike(Value v) {
  RefTensor t;
  t.shape.assign(shapeOf(v).begin(), shapeOf(v).end());
  t.data.assign(t.numElements(), 0.0);
  return t;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Checks that `v` is an exact integer in [0, limit) and returns it.
std::optional<int64_t> indexIn(double v, int64_t limit) {
  if (!(v >= 0) || !(v < static_cast<double>(limit)) || std::trunc(v) != v)
    return std::nullopt;
  return static_cast<int64_t>(v);
}

/// Softmax of `n` values at `x[0], x[stride], ...` in place, max-subtracted.
void softmaxInPlace(double *x, int64_t n, int64_t stride) {
  double mx = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i)
    mx =
        std::isnan(x[i * stride]) ? x[i * stride] : std::max(mx, x[i * stride]);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i * stride] = std::exp(x[i * stride] - mx);
    sum += x[i * stride];
  }
  for (int64_t i = 0; i < n; ++i)
    x[i * stride] /= sum;
}

/// `out[m, n] = sum_k a[m, k] * b[k, n]` for row-major matrices.
void matmul(const double *a, const double *b, double *out, int64_t m, int64_t k,
            int64_t n) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += a[i * k + p] * b[p * n + j];
      out[i * n + j] = sum;
    }
}

//===----------------------------------------------------------------------===//
// Layers without failure modes
//===----------------------------------------------------------------------===//

RefTensor evalDense(DenseOp op, const RefTensor &x, const RefTensor &w,
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

RefTensor evalMatmul(MatmulOp op, const RefTensor &a, const RefTensor &b) {
  RefTensor y = zerosLike(op.getResult());
  size_t rank = a.shape.size();
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  int64_t batch = product(ArrayRef<int64_t>(a.shape).drop_back(2));
  for (int64_t i = 0; i < batch; ++i)
    matmul(a.data.data() + i * m * k, b.data.data() + i * k * n,
           y.data.data() + i * m * n, m, k, n);
  return y;
}

/// A 2-D convolution of `x` [N, C, H, W] with `w` [F, C/groups, KH, KW]
/// into `y` [N, F, OH, OW]: per output, `Acc acc{}` receives
/// `add(acc, xIndex, wIndex)` for every product (padded positions are
/// skipped: they hold 0, or the zero point for integer convolutions), then
/// `y = finish(acc, f)`. The attributes come from `op` (conv2d or qconv2d).
template <typename Acc, typename OpTy, typename Add, typename Finish>
void convolve(OpTy op, const RefTensor &x, const RefTensor &w, RefTensor &y,
              Add add, Finish finish) {
  int64_t batch = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  int64_t f = w.shape[0], cg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  int64_t oh = y.shape[2], ow = y.shape[3];
  int64_t groups = static_cast<int64_t>(op.getGroups());
  int64_t fg = f / groups;
  ArrayRef<int64_t> s = op.getStrides(), p = op.getPadding(),
                    d = op.getDilations();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < f; ++o) {
      int64_t group = o / fg;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          Acc acc{};
          for (int64_t ci = 0; ci < cg; ++ci) {
            int64_t channel = group * cg + ci;
            for (int64_t u = 0; u < kh; ++u) {
              int64_t row = i * s[0] - p[0] + u * d[0];
              if (row < 0 || row >= h)
                continue;
              for (int64_t v = 0; v < kw; ++v) {
                int64_t col = j * s[1] - p[1] + v * d[1];
                if (col < 0 || col >= wd)
                  continue;
                add(acc, ((b * c + channel) * h + row) * wd + col,
                    ((o * cg + ci) * kh + u) * kw + v);
              }
            }
          }
          y.data[((b * f + o) * oh + i) * ow + j] = finish(acc, o);
        }
    }
}

RefTensor evalConv2D(Conv2DOp op, const RefTensor &x, const RefTensor &w,
                     const RefTensor *bias) {
  RefTensor y = zerosLike(op.getResult());
  convolve<double>(
      op, x, w, y,
      [&](double &sum, int64_t xi, int64_t wi) {
        sum += x.data[xi] * w.data[wi];
      },
      [&](double sum, int64_t o) { return bias ? sum + bias->data[o] : sum; });
  return y;
}

RefTensor evalBatchNorm(BatchNormOp op, const RefTensor &x,
                        const RefTensor &scale, const RefTensor &bias,
                        const RefTensor &mean, const RefTensor &variance) {
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

RefTensor evalLayerNorm(LayerNormOp op, const RefTensor &x,
                        const RefTensor &gamma, const RefTensor &beta) {
  RefTensor y = zerosLike(op.getResult());
  double eps = op.getEpsilon().convertToDouble();
  int64_t d = x.shape.back();
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

RefTensor evalSoftmax(SoftmaxOp op, const RefTensor &x) {
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

RefTensor evalRelu(const RefTensor &x) {
  RefTensor y = x;
  for (double &v : y.data)
    v = std::isnan(v) ? v : (v > 0 ? v : 0.0);
  return y;
}

RefTensor evalGelu(GeluOp op, const RefTensor &x) {
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

RefTensor evalGlobalAvgPool(GlobalAvgPoolOp op, const RefTensor &x) {
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

RefTensor evalMaxPool2D(MaxPool2DOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t h = x.shape[2], w = x.shape[3], oh = y.shape[2], ow = y.shape[3];
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(),
                    p = op.getPadding();
  for (int64_t nc = 0, e = x.shape[0] * x.shape[1]; nc < e; ++nc)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        // Padded cells are skipped, so they never win; since the padding is
        // smaller than the kernel, every window has a real cell. NaN wins.
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t u = 0; u < k[0]; ++u) {
          int64_t row = i * s[0] - p[0] + u;
          if (row < 0 || row >= h)
            continue;
          for (int64_t v = 0; v < k[1]; ++v) {
            int64_t col = j * s[1] - p[1] + v;
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

/// Per head, softmax(Q K^T / sqrt(D)) V on projected q, k, v [B, S, E]
/// (row-major, `rows` = B * S rows of E), into `ctx`.
void attentionCore(const std::vector<double> &q, const std::vector<double> &k,
                   const std::vector<double> &v, std::vector<double> &ctx,
                   int64_t batch, int64_t seq, int64_t e, int64_t heads,
                   bool causal) {
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

RefTensor evalAttention(AttentionOp op, const RefTensor &x, const RefTensor &wq,
                        const RefTensor &wk, const RefTensor &wv,
                        const RefTensor &wo) {
  int64_t batch = x.shape[0], seq = x.shape[1], e = x.shape[2];
  int64_t rows = batch * seq;
  std::vector<double> q(rows * e), k(rows * e), v(rows * e), ctx(rows * e);
  matmul(x.data.data(), wq.data.data(), q.data(), rows, e, e);
  matmul(x.data.data(), wk.data.data(), k.data(), rows, e, e);
  matmul(x.data.data(), wv.data.data(), v.data(), rows, e, e);
  attentionCore(q, k, v, ctx, batch, seq, e,
                static_cast<int64_t>(op.getNumHeads()), op.getCausal());
  RefTensor y = zerosLike(op.getResult());
  matmul(ctx.data(), wo.data.data(), y.data.data(), rows, e, e);
  return y;
}

RefTensor evalAttentionCore(AttentionCoreOp op, const RefTensor &q,
                            const RefTensor &k, const RefTensor &v) {
  RefTensor y = zerosLike(op.getResult());
  attentionCore(q.data, k.data, v.data, y.data, q.shape[0], q.shape[1],
                q.shape[2], static_cast<int64_t>(op.getNumHeads()),
                op.getCausal());
  return y;
}

RefTensor evalMseLoss(const RefTensor &prediction, const RefTensor &target) {
  double sum = 0;
  for (size_t i = 0; i < prediction.data.size(); ++i) {
    double diff = prediction.data[i] - target.data[i];
    sum += diff * diff;
  }
  RefTensor y;
  y.data = {sum / static_cast<double>(prediction.data.size())};
  return y;
}

/// The same data under `op`'s result shape (reshape, flatten).
RefTensor evalReshape(Operation *op, const RefTensor &x) {
  RefTensor y = zerosLike(op->getResult(0));
  y.data = x.data;
  return y;
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

/// Values of one region (blocks are isolated from above, so each region has
/// its own environment).
using Env = llvm::DenseMap<Value, RefTensor>;

//===----------------------------------------------------------------------===//
// Quantized ops (exact emulation of the compiled code and mixrt)
//===----------------------------------------------------------------------===//

/// A per-channel parameter: one value, or one per channel.
double channelParam(const RefTensor &t, int64_t c) {
  return t.data.size() == 1 ? t.data[0] : t.data[c];
}

/// (f32)((f64)sa * (f64)sb * acc) + bias in f32, as mixrt_gemm_s8_f32 plus
/// one f32 addition; rounded to the result's element type.
double rescaleValue(double sa, double sb, int64_t acc, const RefTensor *bias,
                    int64_t c, FloatType outType) {
  float v = static_cast<float>(sa * sb * static_cast<double>(acc));
  if (bias)
    v = v + static_cast<float>(bias->data[c]);
  return roundToType(v, outType);
}

FloatType resultFloatType(Operation *op) {
  return cast<FloatType>(getElementTypeOrSelf(op->getResult(0).getType()));
}

RefTensor evalQDense(QDenseOp op, const RefTensor &x, const RefTensor &xs,
                     const RefTensor &xz, const RefTensor &w,
                     const RefTensor &ws, const RefTensor &wz,
                     const RefTensor *bias) {
  RefTensor y = zerosLike(op.getResult());
  int64_t k = w.shape[0], n = w.shape[1];
  int64_t rows = product(ArrayRef<int64_t>(x.shape).drop_back());
  FloatType outType = resultFloatType(op);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      // The input's parameters: per tensor, or per row of a [M, K] input.
      int64_t za = static_cast<int64_t>(channelParam(xz, r));
      int64_t zb = static_cast<int64_t>(channelParam(wz, j));
      int64_t acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += (static_cast<int64_t>(x.data[r * k + p]) - za) *
               (static_cast<int64_t>(w.data[p * n + j]) - zb);
      y.data[r * n + j] = rescaleValue(channelParam(xs, r),
                                       channelParam(ws, j), acc, bias, j,
                                       outType);
    }
  return y;
}

RefTensor evalQMatmul(QMatmulOp op, const RefTensor &a, const RefTensor &as,
                      const RefTensor &az, const RefTensor &b,
                      const RefTensor &bs, const RefTensor &bz) {
  RefTensor y = zerosLike(op.getResult());
  size_t rank = a.shape.size();
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  int64_t batch = product(ArrayRef<int64_t>(a.shape).drop_back(2));
  int64_t zb = static_cast<int64_t>(bz.data[0]);
  FloatType outType = resultFloatType(op);
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        // The lhs parameters: per tensor, or per row of a [M, K] lhs.
        int64_t za = static_cast<int64_t>(channelParam(az, i));
        int64_t acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += (static_cast<int64_t>(a.data[(t * m + i) * k + p]) - za) *
                 (static_cast<int64_t>(b.data[(t * k + p) * n + j]) - zb);
        y.data[(t * m + i) * n + j] = rescaleValue(
            channelParam(as, i), bs.data[0], acc, nullptr, 0, outType);
      }
  return y;
}

RefTensor evalQConv2D(QConv2DOp op, const RefTensor &x, const RefTensor &xs,
                      const RefTensor &xz, const RefTensor &w,
                      const RefTensor &ws, const RefTensor &wz,
                      const RefTensor *bias) {
  RefTensor y = zerosLike(op.getResult());
  int64_t za = static_cast<int64_t>(xz.data[0]);
  int64_t perFilter = w.numElements() / w.shape[0];
  FloatType outType = resultFloatType(op);
  // Padded positions hold za: they add 0 and are skipped.
  convolve<int64_t>(
      op, x, w, y,
      [&](int64_t &acc, int64_t xi, int64_t wi) {
        int64_t zb = static_cast<int64_t>(channelParam(wz, wi / perFilter));
        acc += (static_cast<int64_t>(x.data[xi]) - za) *
               (static_cast<int64_t>(w.data[wi]) - zb);
      },
      [&](int64_t acc, int64_t o) {
        return rescaleValue(xs.data[0], channelParam(ws, o), acc, bias, o,
                            outType);
      });
  return y;
}

/// The rescale of an integer GEMM beyond f32 is an error, as in mixrt and
/// in checked compiled code.
llvm::Expected<RefTensor> checkRescaled(Operation *op, RefTensor result) {
  for (auto [i, v] : llvm::enumerate(result.data))
    if (std::isinf(v))
      return errorAt(op->getLoc(), "int8 rescale overflows f32 at element " +
                                       llvm::Twine(i));
  return result;
}

class Interpreter {
public:
  Interpreter(const WeightMap &weights, const InterpreterOptions &options)
      : weights(weights), options(options) {}

  /// Binds `args` to the region's arguments, runs it and returns the values
  /// of its terminator (`mix.yield` or `mix.return`).
  llvm::Expected<std::vector<RefTensor>> runRegion(Region &region,
                                                   ArrayRef<RefTensor> args);

private:
  llvm::Error execute(Operation *op, Env &env);
  llvm::Expected<RefTensor> evalWeight(WeightOp op);
  llvm::Expected<RefTensor> evalCast(CastOp op, const RefTensor &x);
  llvm::Expected<RefTensor> evalEmbedding(EmbeddingOp op,
                                          const RefTensor &indices,
                                          const RefTensor &table);
  llvm::Expected<RefTensor> evalCrossEntropy(CrossEntropyLossOp op,
                                             const RefTensor &logits,
                                             const RefTensor &labels);
  llvm::Error evalQuantize(QuantizeOp op, const RefTensor &x, Env &env);

  const WeightMap &weights;
  const InterpreterOptions &options;
};

llvm::Expected<std::vector<RefTensor>>
Interpreter::runRegion(Region &region, ArrayRef<RefTensor> args) {
  Block &body = region.front();
  Env env;
  for (auto [arg, value] : llvm::zip_equal(body.getArguments(), args))
    env[arg] = value;
  for (Operation &op : body.without_terminator()) {
    if (options.beforeLayer && isa<LayerOpInterface>(op)) {
      SmallVector<const RefTensor *> operands;
      for (Value v : op.getOperands())
        operands.push_back(&env.find(v)->second);
      options.beforeLayer(&op, operands);
    }
    if (llvm::Error err = execute(&op, env))
      return std::move(err);
    if (options.afterOp && op.getNumResults() == 1)
      options.afterOp(&op, env.find(op.getResult(0))->second);
  }
  std::vector<RefTensor> results;
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(env.lookup(v));
  return results;
}

llvm::Error Interpreter::execute(Operation *op, Env &env) {
  auto in = [&](Value v) -> const RefTensor & {
    auto it = env.find(v);
    assert(it != env.end() && "operand not computed yet");
    return it->second;
  };
  auto optional = [&](Value v) -> const RefTensor * {
    return v ? &in(v) : nullptr;
  };
  // Binds one result, or forwards an error.
  auto bind = [&](llvm::Expected<RefTensor> value) -> llvm::Error {
    if (!value)
      return value.takeError();
    env[op->getResult(0)] = std::move(*value);
    return llvm::Error::success();
  };

  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](BlockOp block) -> llvm::Error {
        SmallVector<RefTensor> args;
        for (Value v : block.getInputs())
          args.push_back(in(v));
        auto results = runRegion(block.getBody(), args);
        if (!results)
          return results.takeError();
        for (auto [result, value] :
             llvm::zip_equal(block.getResults(), *results))
          env[result] = std::move(value);
        return llvm::Error::success();
      })
      .Case([&](WeightOp w) { return bind(evalWeight(w)); })
      .Case([&](CastOp c) { return bind(evalCast(c, in(c.getInput()))); })
      .Case([&](DenseOp d) {
        return bind(evalDense(d, in(d.getInput()), in(d.getWeight()),
                              optional(d.getBias())));
      })
      .Case([&](MatmulOp m) {
        return bind(evalMatmul(m, in(m.getLhs()), in(m.getRhs())));
      })
      .Case([&](Conv2DOp c) {
        return bind(evalConv2D(c, in(c.getInput()), in(c.getWeight()),
                               optional(c.getBias())));
      })
      .Case([&](BatchNormOp b) {
        return bind(evalBatchNorm(b, in(b.getInput()), in(b.getScale()),
                                  in(b.getBias()), in(b.getMean()),
                                  in(b.getVariance())));
      })
      .Case([&](LayerNormOp l) {
        return bind(evalLayerNorm(l, in(l.getInput()), in(l.getGamma()),
                                  in(l.getBeta())));
      })
      .Case([&](SoftmaxOp s) { return bind(evalSoftmax(s, in(s.getInput()))); })
      .Case([&](ReluOp r) { return bind(evalRelu(in(r.getInput()))); })
      .Case([&](GeluOp g) { return bind(evalGelu(g, in(g.getInput()))); })
      .Case([&](AddOp a) {
        return bind(evalBroadcast(a.getResult(), in(a.getLhs()), in(a.getRhs()),
                                  [](double x, double y) { return x + y; }));
      })
      .Case([&](MulOp m) {
        return bind(evalBroadcast(m.getResult(), in(m.getLhs()), in(m.getRhs()),
                                  [](double x, double y) { return x * y; }));
      })
      .Case([&](EmbeddingOp e) {
        return bind(evalEmbedding(e, in(e.getIndices()), in(e.getTable())));
      })
      .Case([&](GlobalAvgPoolOp g) {
        return bind(evalGlobalAvgPool(g, in(g.getInput())));
      })
      .Case([&](MaxPool2DOp m) {
        return bind(evalMaxPool2D(m, in(m.getInput())));
      })
      .Case<ReshapeOp, FlattenOp>([&](Operation *r) {
        return bind(evalReshape(r, in(r->getOperand(0))));
      })
      .Case([&](AttentionOp a) {
        return bind(evalAttention(a, in(a.getInput()), in(a.getWq()),
                                  in(a.getWk()), in(a.getWv()), in(a.getWo())));
      })
      .Case([&](CrossEntropyLossOp c) {
        return bind(evalCrossEntropy(c, in(c.getLogits()), in(c.getLabels())));
      })
      .Case([&](MseLossOp m) {
        return bind(evalMseLoss(in(m.getPrediction()), in(m.getTarget())));
      })
      .Case([&](QuantizeOp q) { return evalQuantize(q, in(q.getInput()), env); })
      .Case([&](AttentionCoreOp a) {
        return bind(
            evalAttentionCore(a, in(a.getQ()), in(a.getK()), in(a.getV())));
      })
      .Case([&](QDenseOp d) {
        return bind(checkRescaled(d, evalQDense(d, in(d.getInput()), in(d.getInputScale()),
                               in(d.getInputZeroPoint()), in(d.getWeight()),
                               in(d.getWeightScales()),
                               in(d.getWeightZeroPoints()),
                               optional(d.getBias()))));
      })
      .Case([&](QMatmulOp m) {
        return bind(checkRescaled(
            m, evalQMatmul(m, in(m.getLhs()), in(m.getLhsScale()),
                           in(m.getLhsZeroPoint()), in(m.getRhs()),
                           in(m.getRhsScale()), in(m.getRhsZeroPoint()))));
      })
      .Case([&](QConv2DOp c) {
        return bind(checkRescaled(c, evalQConv2D(c, in(c.getInput()), in(c.getInputScale()),
                                in(c.getInputZeroPoint()), in(c.getWeight()),
                                in(c.getWeightScales()),
                                in(c.getWeightZeroPoints()),
                                optional(c.getBias()))));
      })
      .Default([&](Operation *other) {
        return errorAt(other->getLoc(), "the interpreter does not support '" +
                                            other->getName().getStringRef() +
                                            "'");
      });
}

llvm::Expected<RefTensor> Interpreter::evalWeight(WeightOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  if (StringAttr ref = op.getRefAttr()) {
    auto it = weights.find(ref.getValue());
    if (it == weights.end())
      return errorAt(op.getLoc(), "external weight '" + ref.getValue() +
                                      "' is not in the weight map");
    const RefTensor &w = it->second;
    if (ArrayRef<int64_t>(w.shape) != type.getShape())
      return errorAt(op.getLoc(), "external weight '" + ref.getValue() +
                                      "' has shape " + formatShape(w.shape) +
                                      ", but the model declares " +
                                      formatShape(type.getShape()) + " (" +
                                      typeStr(type) + ")");
    if (static_cast<int64_t>(w.data.size()) != w.numElements())
      return errorAt(op.getLoc(), "external weight '" + ref.getValue() +
                                      "' holds " + llvm::Twine(w.data.size()) +
                                      " values, but its shape " +
                                      formatShape(w.shape) + " needs " +
                                      llvm::Twine(w.numElements()));
    return w;
  }
  RefTensor t = zerosLike(op.getResult());
  ElementsAttr value = op.getValueAttr();
  if (auto floats = dyn_cast<DenseFPElementsAttr>(value)) {
    for (auto [i, element] :
         llvm::enumerate(floats.getValues<llvm::APFloat>())) {
      llvm::APFloat v = element;
      bool losesInfo = false;
      // Widening to f64 is exact for every float type the dialect allows.
      (void)v.convert(llvm::APFloat::IEEEdouble(),
                      llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      t.data[i] = v.convertToDouble();
    }
    return t;
  }
  if (auto ints = dyn_cast<DenseIntElementsAttr>(value)) {
    bool isUnsigned = ints.getElementType().isUnsignedInteger();
    for (auto [i, v] : llvm::enumerate(ints.getValues<llvm::APInt>()))
      t.data[i] = isUnsigned ? static_cast<double>(v.getZExtValue())
                             : static_cast<double>(v.getSExtValue());
    return t;
  }
  return errorAt(op.getLoc(), "the interpreter supports inline weight data "
                              "only as dense<...> elements");
}

llvm::Expected<RefTensor> Interpreter::evalCast(CastOp op, const RefTensor &x) {
  auto to = cast<FloatType>(getElementTypeOrSelf(op.getType()));
  RefTensor y = x;
  for (auto [i, v] : llvm::enumerate(y.data)) {
    double rounded = roundToType(v, to);
    if (op.getChecked() && std::isinf(rounded) && std::isfinite(v))
      return errorAt(op.getLoc(), "checked cast: value " + valueStr(v) +
                                      " at element " + llvm::Twine(i) +
                                      " overflows " + typeStr(to));
    v = rounded;
  }
  return y;
}

llvm::Error Interpreter::evalQuantize(QuantizeOp op, const RefTensor &x,
                                      Env &env) {
  auto inType = cast<FloatType>(getElementTypeOrSelf(op.getInput().getType()));
  bool f64 = inType.isF64();
  bool symmetric = op.getScheme() == QuantScheme::symmetric;
  // The input as compiled code holds it (its element type), then widened
  // to the compute type (f32, or f64 for f64 input) exactly.
  std::vector<double> values(x.data.size());
  for (auto [i, v] : llvm::enumerate(x.data)) {
    values[i] = roundToType(v, inType);
    if (op.getChecked() && !std::isfinite(values[i]))
      return errorAt(op.getLoc(), "non-finite value " + valueStr(values[i]) +
                                      " at element " + llvm::Twine(i) +
                                      " reaches an int8 quantize");
  }
  // One parameter set per tensor, or per index along the axis: element i
  // belongs to channel (i / inner) % channels.
  int64_t channels = 1, inner = 1;
  if (std::optional<uint64_t> axis = op.getAxis()) {
    channels = x.shape[*axis];
    for (size_t d = *axis + 1; d < x.shape.size(); ++d)
      inner *= x.shape[d];
  }
  auto channelOf = [&](size_t i) {
    return static_cast<int64_t>(i / inner) % channels;
  };
  std::vector<float> scales(channels, 1.0f);
  std::vector<int32_t> zeroPoints(channels, 0);
  if (op.getScaleAttr()) {
    scales[0] = op.getScaleAttr().getValue().convertToFloat();
    zeroPoints[0] = static_cast<int32_t>(op.getZeroPointAttr().getInt());
  } else {
    // mixrt's parameters: lo = min(min x, 0), hi = max(max x, 0) in f64.
    std::vector<double> lo(channels, 0.0), hi(channels, 0.0);
    for (auto [i, v] : llvm::enumerate(values)) {
      lo[channelOf(i)] = std::min(lo[channelOf(i)], v);
      hi[channelOf(i)] = std::max(hi[channelOf(i)], v);
    }
    for (int64_t c = 0; c < channels; ++c) {
      if (lo[c] == 0 && hi[c] == 0)
        continue; // scale 1, zero point 0
      double wide = symmetric ? std::max(-lo[c], hi[c]) / 127.0
                              : (hi[c] - lo[c]) / 255.0;
      float scale = static_cast<float>(wide);
      if (!std::isfinite(scale))
        return errorAt(op.getLoc(), "int8 quantization scale " +
                                        valueStr(wide) +
                                        " is not representable in f32");
      scales[c] = std::max(scale, std::numeric_limits<float>::min());
      if (!symmetric)
        zeroPoints[c] = static_cast<int32_t>(std::clamp(
            std::nearbyint(-128.0 - lo[c] / static_cast<double>(scales[c])),
            -128.0, 127.0));
    }
  }
  double qmin = symmetric ? -127 : -128, qmax = 127;
  RefTensor q;
  q.shape = x.shape;
  q.data.resize(values.size());
  for (auto [i, v] : llvm::enumerate(values)) {
    float scale = scales[channelOf(i)];
    int32_t zeroPoint = zeroPoints[channelOf(i)];
    // The quotient in the compute type, round half to even, + zero point,
    // clamp before narrowing (mixrt's quantizeOne).
    double r = f64 ? std::nearbyint(v / static_cast<double>(scale)) +
                         static_cast<double>(zeroPoint)
                   : static_cast<double>(
                         std::nearbyint(static_cast<float>(v) / scale) +
                         static_cast<float>(zeroPoint));
    q.data[i] = std::isnan(r) ? zeroPoint : std::clamp(r, qmin, qmax);
  }
  RefTensor usedScales, usedZeroPoints;
  if (op.getAxis()) {
    usedScales.shape = {channels};
    usedZeroPoints.shape = {channels};
  }
  usedScales.data.assign(scales.begin(), scales.end());
  usedZeroPoints.data.assign(zeroPoints.begin(), zeroPoints.end());
  env[op.getResult()] = std::move(q);
  env[op.getUsedScale()] = std::move(usedScales);
  env[op.getUsedZeroPoint()] = std::move(usedZeroPoints);
  return llvm::Error::success();
}

llvm::Expected<RefTensor> Interpreter::evalEmbedding(EmbeddingOp op,
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

llvm::Expected<RefTensor>
Interpreter::evalCrossEntropy(CrossEntropyLossOp op, const RefTensor &logits,
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

/// Checks one network input against its argument type.
llvm::Error checkInput(NetworkOp network, unsigned i, const RefTensor &input) {
  auto type = dyn_cast<RankedTensorType>(network.getArgumentTypes()[i]);
  std::string what = "input #" + std::to_string(i) + " of network @" +
                     network.getSymName().str();
  if (!type)
    return errorAt(network.getLoc(),
                   what + " has type " +
                       typeStr(network.getArgumentTypes()[i]) +
                       ", which the interpreter does not "
                       "support (only tensors)");
  if (ArrayRef<int64_t>(input.shape) != type.getShape())
    return errorAt(network.getLoc(),
                   what + " has shape " + formatShape(input.shape) +
                       ", expected " + formatShape(type.getShape()) + " (" +
                       typeStr(type) + ")");
  if (static_cast<int64_t>(input.data.size()) != input.numElements())
    return errorAt(network.getLoc(),
                   what + " holds " + llvm::Twine(input.data.size()) +
                       " values, but its shape " + formatShape(input.shape) +
                       " needs " + llvm::Twine(input.numElements()));
  if (auto intType = dyn_cast<IntegerType>(type.getElementType())) {
    unsigned width = intType.getWidth();
    double lo = intType.isUnsigned() ? 0.0 : -std::ldexp(1.0, width - 1);
    double hi = intType.isUnsigned() ? std::ldexp(1.0, width)
                                     : std::ldexp(1.0, width - 1);
    for (auto [j, v] : llvm::enumerate(input.data))
      if (!(v >= lo && v < hi) || std::trunc(v) != v)
        return errorAt(network.getLoc(),
                       what + " (" + typeStr(type) + ") holds " + valueStr(v) +
                           " at element " + llvm::Twine(j) +
                           ", which is not a value of " + typeStr(intType));
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<RefTensor>>
mix::interpret(NetworkOp network, ArrayRef<RefTensor> inputs,
               const WeightMap &weights, const InterpreterOptions &options) {
  size_t expected = network.getArgumentTypes().size();
  if (inputs.size() != expected)
    return errorAt(network.getLoc(), "network @" + network.getSymName() +
                                         " expects " + llvm::Twine(expected) +
                                         " input(s), got " +
                                         llvm::Twine(inputs.size()));
  for (auto [i, input] : llvm::enumerate(inputs))
    if (llvm::Error err = checkInput(network, i, input))
      return std::move(err);
  Interpreter interpreter(weights, options);
  return interpreter.runRegion(network.getBody(), inputs);
}
