//===- InterpreterQuantized.cpp - quantized ops in the interpreter --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The quantized ops of mix-quantize, emulated bit for bit as compiled code
// computes them and as mixrt does: quantize in the input's element type,
// exact integer sums, rescale `(f32)((f64)sa * (f64)sb * acc)` + an f32 bias.
//
//===----------------------------------------------------------------------===//

#include "compiler/InterpreterImpl.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::interp;

namespace {

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

} // namespace

llvm::Error interp::evalQuantize(QuantizeOp op, const RefTensor &x, Env &env) {
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
      double wide =
          symmetric ? std::max(-lo[c], hi[c]) / 127.0 : (hi[c] - lo[c]) / 255.0;
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

RefTensor interp::evalDequantize(DequantizeOp op, const RefTensor &q,
                                 const RefTensor &scales,
                                 const RefTensor &zeroPoints) {
  // Element i belongs to index (i / inner) % channels along the axis.
  int64_t channels = 1, inner = 1;
  if (std::optional<uint64_t> axis = op.getAxis()) {
    channels = q.shape[*axis];
    for (size_t d = *axis + 1; d < q.shape.size(); ++d)
      inner *= q.shape[d];
  }
  RefTensor x;
  x.shape = q.shape;
  x.data.resize(q.data.size());
  for (auto [i, v] : llvm::enumerate(q.data)) {
    int64_t c = static_cast<int64_t>(i / inner) % channels;
    // The exact difference, then one f32 rounding of the product.
    float d = static_cast<float>(static_cast<int32_t>(v) -
                                 static_cast<int32_t>(zeroPoints.data[c]));
    x.data[i] = static_cast<float>(scales.data[c]) * d;
  }
  return x;
}

RefTensor interp::evalQDense(QDenseOp op, const RefTensor &x,
                             const RefTensor &xs, const RefTensor &xz,
                             const RefTensor &w, const RefTensor &ws,
                             const RefTensor &wz, const RefTensor *bias) {
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
      y.data[r * n + j] = rescaleValue(channelParam(xs, r), channelParam(ws, j),
                                       acc, bias, j, outType);
    }
  return y;
}

RefTensor interp::evalQMatmul(QMatmulOp op, const RefTensor &a,
                              const RefTensor &as, const RefTensor &az,
                              const RefTensor &b, const RefTensor &bs,
                              const RefTensor &bz) {
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

RefTensor interp::evalQConv2D(QConv2DOp op, const RefTensor &x,
                              const RefTensor &xs, const RefTensor &xz,
                              const RefTensor &w, const RefTensor &ws,
                              const RefTensor &wz, const RefTensor *bias) {
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

llvm::Expected<RefTensor> interp::checkRescaled(Operation *op,
                                                RefTensor result) {
  for (auto [i, v] : llvm::enumerate(result.data))
    if (std::isinf(v))
      return errorAt(op->getLoc(),
                     "int8 rescale overflows f32 at element " + llvm::Twine(i));
  return result;
}
