//===- MixOpsVerifyQuantized.cpp - verifiers of quantized ops -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Shape and parameter checks of the ops mix-quantize creates: quantize, the
// integer GEMMs (qdense, qmatmul, qconv2d) and attention_core.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixOpsVerify.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mix;
using namespace mix::checks;

//===----------------------------------------------------------------------===//
// Quantized arithmetic
//===----------------------------------------------------------------------===//

LogicalResult QuantizeOp::verify() {
  if (shapeOf(getInput()) != shapeOf(getResult()))
    return emitOpError() << "result shape " << formatShape(shapeOf(getResult()))
                         << " differs from the input shape "
                         << formatShape(shapeOf(getInput()));
  if (!!getScaleAttr() != !!getZeroPointAttr())
    return emitOpError() << "static parameters need both a scale and a zero "
                            "point";
  ArrayRef<int64_t> in = shapeOf(getInput());
  SmallVector<int64_t> params;
  if (std::optional<uint64_t> axis = getAxis()) {
    int64_t a = static_cast<int64_t>(*axis);
    if (getScaleAttr())
      return emitOpError() << "static parameters are per tensor; remove the "
                              "axis";
    if (a < 0 || a >= static_cast<int64_t>(in.size()))
      return emitOpError() << "axis " << a << " is outside the input's rank "
                           << in.size();
    params.push_back(in[a]);
  }
  if (shapeOf(getUsedScale()) != ArrayRef<int64_t>(params) ||
      shapeOf(getUsedZeroPoint()) != ArrayRef<int64_t>(params))
    return emitOpError() << "expects parameter results of shape "
                         << formatShape(params)
                         << (params.empty() ? " (per tensor)"
                                            : " (per index "
                                              "along the axis)");
  if (FloatAttr scale = getScaleAttr()) {
    double s = scale.getValueAsDouble();
    if (!(s > 0) || !std::isfinite(s))
      return emitOpError() << "scale must be positive and finite, got " << s;
    int64_t z = getZeroPointAttr().getInt();
    if (getScheme() == QuantScheme::symmetric && z != 0)
      return emitOpError() << "the symmetric scheme needs zero point 0, got "
                           << z;
    if (z < -128 || z > 127)
      return emitOpError() << "zero point " << z << " is outside [-128, 127]";
  }
  return success();
}

LogicalResult DequantizeOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (in != shapeOf(getResult()))
    return emitOpError() << "result shape " << formatShape(shapeOf(getResult()))
                         << " differs from the input shape " << formatShape(in);
  int64_t expected = 1;
  if (std::optional<uint64_t> axis = getAxis()) {
    int64_t a = static_cast<int64_t>(*axis);
    if (a < 0 || a >= static_cast<int64_t>(in.size()))
      return emitOpError() << "axis " << a << " is outside the input's rank "
                           << in.size();
    expected = in[a];
  }
  for (auto [value, what] : {std::pair<Value, StringRef>{getScales(), "scales"},
                             {getZeroPoints(), "zero points"}}) {
    int64_t n = shapeOf(value)[0];
    if (n != expected)
      return emitOpError() << "expects " << what << " of shape [" << expected
                           << "] ("
                           << (getAxis() ? "one per index along the axis"
                                         : "per tensor")
                           << "), got [" << n << "]";
  }
  return success();
}

/// Per-channel weight scales and zero points hold 1 or `channels` values.
template <typename OpTy>
static LogicalResult verifyWeightParams(OpTy op, int64_t channels) {
  for (auto [value, what] :
       {std::pair<Value, StringRef>{op.getWeightScales(), "weight scales"},
        {op.getWeightZeroPoints(), "weight zero points"}}) {
    int64_t n = shapeOf(value)[0];
    if (n != 1 && n != channels)
      return op.emitOpError()
             << "expects " << what << " of shape [1] or [" << channels
             << "] (output channels), got [" << n << "]";
  }
  return success();
}

static LogicalResult verifyKChunk(Operation *op,
                                  std::optional<uint64_t> chunk) {
  if (chunk && static_cast<int64_t>(*chunk) < 1)
    return op->emitOpError()
           << "expects k_chunk >= 1, got " << static_cast<int64_t>(*chunk);
  return success();
}

/// The scale and zero point of an int8 activation: rank 0, or one per row
/// of a rank-2 operand.
static LogicalResult verifyRowParams(Operation *op, Value operand, Value scale,
                                     Value zeroPoint, StringRef what) {
  ArrayRef<int64_t> s = shapeOf(scale), z = shapeOf(zeroPoint),
                    x = shapeOf(operand);
  if (s != z)
    return op->emitOpError()
           << what << " scale " << formatShape(s) << " and zero point "
           << formatShape(z) << " differ in shape";
  if (s.empty())
    return success();
  if (x.size() != 2 || s[0] != x[0])
    return op->emitOpError()
           << "per-row " << what << " parameters need a [M, K] " << what
           << " with M = " << s[0] << ", got " << formatShape(x);
  return success();
}

LogicalResult QDenseOp::verify() {
  if (failed(verifyDenseShapes(*this)) ||
      failed(verifyKChunk(*this, getKChunk())) ||
      failed(verifyRowParams(*this, getInput(), getInputScale(),
                             getInputZeroPoint(), "input")))
    return failure();
  return verifyWeightParams(*this, shapeOf(getWeight())[1]);
}

LogicalResult QMatmulOp::verify() {
  if (failed(verifyMatmulShapes(*this)) ||
      failed(verifyRowParams(*this, getLhs(), getLhsScale(), getLhsZeroPoint(),
                             "lhs")))
    return failure();
  return verifyKChunk(*this, getKChunk());
}

LogicalResult QConv2DOp::verify() {
  if (failed(verifyConvShapes(*this)) ||
      failed(verifyKChunk(*this, getKChunk())))
    return failure();
  if (getKChunk() && getGroups() != 1)
    return emitOpError() << "k_chunk needs groups = 1";
  return verifyWeightParams(*this, shapeOf(getWeight())[0]);
}

LogicalResult AttentionCoreOp::verify() {
  ArrayRef<int64_t> q = shapeOf(getQ());
  if (failed(checkRank(*this, getQ(), "q", 3)))
    return failure();
  for (auto [value, what] : {std::pair<Value, StringRef>{getK(), "k"},
                             {getV(), "v"},
                             {getResult(), "result"}})
    if (shapeOf(value) != q)
      return emitOpError() << "expects " << what << " of the shape of q "
                           << formatShape(q) << ", got "
                           << formatShape(shapeOf(value));
  int64_t heads = static_cast<int64_t>(getNumHeads());
  if (heads < 1 || q[2] % heads != 0)
    return emitOpError() << "num_heads (" << heads
                         << ") must be >= 1 and divide E (" << q[2] << ")";
  if (getMask())
    return checkAttentionMask(*this, getMask(), getQ(), heads);
  return success();
}
