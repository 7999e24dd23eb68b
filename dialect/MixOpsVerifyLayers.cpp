//===- MixOpsVerifyLayers.cpp - verifiers of the float layers -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Shape and attribute checks of the float layers (dense, matmul, conv2d,
// normalization, activations, elementwise, pooling, shapes, attention, losses).
//
//===----------------------------------------------------------------------===//

#include "dialect/MixOpsVerify.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::checks;

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

LogicalResult DenseOp::verify() { return verifyDenseShapes(*this); }

LogicalResult MatmulOp::verify() { return verifyMatmulShapes(*this); }

LogicalResult Conv2DOp::verify() { return verifyConvShapes(*this); }

LogicalResult BatchNormOp::verify() {
  if (failed(checkMinRank(*this, getInput(), "input", 2)))
    return failure();
  int64_t c = shapeOf(getInput())[1];
  if (failed(checkVector(*this, getScale(), "scale", c, "channels")) ||
      failed(checkVector(*this, getBias(), "bias", c, "channels")) ||
      failed(checkVector(*this, getMean(), "mean", c, "channels")) ||
      failed(checkVector(*this, getVariance(), "variance", c, "channels")))
    return failure();
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "expects epsilon > 0";
  return checkSameShape(*this, getInput(), "input");
}

/// A dynamic (`?`) leading dimension: the batch of a network with a dynamic
/// batch.
static bool hasDynamicBatch(Value value) {
  ArrayRef<int64_t> shape = shapeOf(value);
  return !shape.empty() && ShapedType::isDynamic(shape[0]);
}

/// Layers that combine the samples of a batch cannot take a dynamic batch:
/// each sample of one is computed on its own (docs/dialect.md).
static LogicalResult checkNoDynamicBatch(Operation *op, Value value,
                                         StringRef what, StringRef why) {
  if (!hasDynamicBatch(value))
    return success();
  return op->emitOpError() << "cannot take the dynamic batch of its " << what
                           << " " << formatShape(shapeOf(value)) << ": " << why
                           << ", but each sample of a dynamic batch is "
                              "computed on its own";
}

/// softmax and log_softmax: an axis of the input, not the dynamic batch.
template <typename OpTy> static LogicalResult verifySoftmaxLike(OpTy op) {
  int64_t rank = shapeOf(op.getInput()).size();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < -rank || axis >= rank)
    return op.emitOpError()
           << "axis " << axis << " is out of range for rank " << rank;
  if ((axis == 0 || axis == -rank) &&
      failed(checkNoDynamicBatch(op, op.getInput(), "input",
                                 "axis 0 normalizes across the batch")))
    return failure();
  return checkSameShape(op, op.getInput(), "input");
}

LogicalResult SoftmaxOp::verify() { return verifySoftmaxLike(*this); }

LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxLike(*this); }

/// The trailing dimensions a layer_norm normalizes, [axis, rank), and the
/// shape its gamma and beta must have: exactly those dimensions (so [D] for
/// the default axis -1, as before the axis existed).
LogicalResult LayerNormOp::verify() {
  if (failed(checkMinRank(*this, getInput(), "input", 1)))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(getInput());
  int64_t rank = shape.size();
  // The getter is unsigned: -1 is the last axis.
  int64_t axis = static_cast<int64_t>(getAxis());
  // Rule: the axis is a dimension of the input, counted from the end when
  // negative.
  if (axis < -rank || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for rank "
                         << rank;
  if (axis < 0)
    axis += rank;
  // Rule: each sample of a dynamic batch is normalized on its own, so the
  // batch cannot be among the normalized dimensions.
  if (axis == 0 &&
      failed(checkNoDynamicBatch(*this, getInput(), "input",
                                 "axis 0 normalizes across the batch")))
    return failure();
  // Rule: gamma and beta have the shape of the normalized dimensions (the
  // old message for the last dimension alone).
  ArrayRef<int64_t> normalized = shape.drop_front(axis);
  for (auto [value, what] : {std::pair<Value, StringRef>{getGamma(), "gamma"},
                             {getBeta(), "beta"}}) {
    if (normalized.size() == 1) {
      if (failed(
              checkVector(*this, value, what, normalized[0], "last dimension")))
        return failure();
      continue;
    }
    if (shapeOf(value) == normalized)
      continue;
    InFlightDiagnostic diag =
        emitOpError() << "expects " << what << " of shape "
                      << formatShape(normalized)
                      << " (the normalized dimensions from axis " << axis
                      << "), got " << formatShape(shapeOf(value));
    noteDefinition(diag, value, what);
    return diag;
  }
  // Rule: epsilon keeps the denominator away from 0.
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "expects epsilon > 0";
  return checkSameShape(*this, getInput(), "input");
}

/// instance_norm: [N, C, D1, ...] with per-channel scale and bias.
LogicalResult InstanceNormOp::verify() {
  // Rule: at least one spatial dimension to normalize over.
  if (failed(checkMinRank(*this, getInput(), "input", 3)))
    return failure();
  int64_t c = shapeOf(getInput())[1];
  // Rule: scale and bias are per channel, [C].
  if (failed(checkVector(*this, getScale(), "scale", c, "channels")) ||
      failed(checkVector(*this, getBias(), "bias", c, "channels")))
    return failure();
  // Rule: epsilon keeps the denominator away from 0.
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "expects epsilon > 0";
  return checkSameShape(*this, getInput(), "input");
}

/// group_norm: [N, C, ...] split into num_groups groups of C / num_groups
/// consecutive channels, with per-channel scale and bias.
LogicalResult GroupNormOp::verify() {
  // Rule: a batch and a channel dimension.
  if (failed(checkMinRank(*this, getInput(), "input", 2)))
    return failure();
  int64_t c = shapeOf(getInput())[1];
  int64_t groups = static_cast<int64_t>(getNumGroups());
  // Rule: the groups split the channels evenly.
  if (groups < 1 || c % groups != 0)
    return emitOpError() << "num_groups " << groups
                         << " must be positive and divide the " << c
                         << " channels";
  // Rule: scale and bias are per channel, [C] (ONNX opset 21).
  if (failed(checkVector(*this, getScale(), "scale", c, "channels")) ||
      failed(checkVector(*this, getBias(), "bias", c, "channels")))
    return failure();
  // Rule: epsilon keeps the denominator away from 0.
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "expects epsilon > 0";
  return checkSameShape(*this, getInput(), "input");
}

LogicalResult ReluOp::verify() {
  return checkSameShape(*this, getInput(), "input");
}

LogicalResult GeluOp::verify() {
  return checkSameShape(*this, getInput(), "input");
}

/// Numpy-style broadcast of two shapes, or failure.
static LogicalResult checkBroadcast(Operation *op, Value lhs, Value rhs) {
  ArrayRef<int64_t> a = shapeOf(lhs), b = shapeOf(rhs);
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> expected(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return op->emitOpError() << "operand shapes " << formatShape(a) << " and "
                               << formatShape(b) << " are not broadcastable";
    expected[i] = da == 1 ? db : da;
  }
  return checkResultShape(op, expected);
}

LogicalResult AddOp::verify() {
  return checkBroadcast(*this, getLhs(), getRhs());
}
LogicalResult MulOp::verify() {
  return checkBroadcast(*this, getLhs(), getRhs());
}

//===----------------------------------------------------------------------===//
// Elementwise math
//===----------------------------------------------------------------------===//

/// The largest pad, stride or dilation the data-movement and upsampling
/// layers take: sizes computed from them (at most 2^31 times a dimension of
/// at most 2^31 each) then stay far from int64 overflow.
constexpr int64_t kMaxExtent = int64_t(1) << 31;

/// A number as diagnostics print it: 6, 0.2, -inf, nan.
static std::string formatNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

/// An attribute of an elementwise function must be a finite number: NaN or
/// infinity would make every result NaN or infinite.
static LogicalResult checkFinite(Operation *op, StringRef name, double value) {
  if (std::isfinite(value))
    return success();
  return op->emitOpError() << name << " must be finite, but is "
                           << formatNumber(value);
}

#define MIX_UNARY_VERIFIER(OP)                                                 \
  LogicalResult OP::verify() {                                                 \
    return checkSameShape(*this, getInput(), "input");                         \
  }
MIX_UNARY_VERIFIER(SigmoidOp)
MIX_UNARY_VERIFIER(TanhOp)
MIX_UNARY_VERIFIER(HardSwishOp)
MIX_UNARY_VERIFIER(SiluOp)
MIX_UNARY_VERIFIER(ExpOp)
MIX_UNARY_VERIFIER(LogOp)
MIX_UNARY_VERIFIER(SqrtOp)
MIX_UNARY_VERIFIER(RsqrtOp)
MIX_UNARY_VERIFIER(AbsOp)
MIX_UNARY_VERIFIER(NegOp)
MIX_UNARY_VERIFIER(ErfOp)
MIX_UNARY_VERIFIER(ReciprocalOp)
MIX_UNARY_VERIFIER(FloorOp)
MIX_UNARY_VERIFIER(CeilOp)
MIX_UNARY_VERIFIER(RoundOp)
MIX_UNARY_VERIFIER(SignOp)
MIX_UNARY_VERIFIER(SinOp)
MIX_UNARY_VERIFIER(CosOp)
MIX_UNARY_VERIFIER(TanOp)
MIX_UNARY_VERIFIER(AsinOp)
MIX_UNARY_VERIFIER(AcosOp)
MIX_UNARY_VERIFIER(AtanOp)
MIX_UNARY_VERIFIER(SinhOp)
MIX_UNARY_VERIFIER(CoshOp)
MIX_UNARY_VERIFIER(AsinhOp)
MIX_UNARY_VERIFIER(AcoshOp)
MIX_UNARY_VERIFIER(AtanhOp)
#undef MIX_UNARY_VERIFIER

LogicalResult HardSigmoidOp::verify() {
  if (failed(checkFinite(*this, "alpha", getAlpha().convertToDouble())) ||
      failed(checkFinite(*this, "beta", getBeta().convertToDouble())))
    return failure();
  return checkSameShape(*this, getInput(), "input");
}

LogicalResult LeakyReluOp::verify() {
  if (failed(checkFinite(*this, "alpha", getAlpha().convertToDouble())))
    return failure();
  return checkSameShape(*this, getInput(), "input");
}

LogicalResult EluOp::verify() {
  if (failed(checkFinite(*this, "alpha", getAlpha().convertToDouble())))
    return failure();
  return checkSameShape(*this, getInput(), "input");
}

/// Bounds may be infinite (no bound on that side) but not NaN, and min must
/// not exceed max (ONNX leaves that case undefined).
LogicalResult ClipOp::verify() {
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  if (std::isnan(lo) || std::isnan(hi))
    return emitOpError() << "bounds must not be NaN";
  if (lo > hi)
    return emitOpError() << "min " << formatNumber(lo)
                         << " is greater than max " << formatNumber(hi);
  return checkSameShape(*this, getInput(), "input");
}

/// glu: an axis of the input (not the dynamic batch) of even size, halved in
/// the result; every other dimension kept.
LogicalResult GluOp::verify() {
  if (failed(checkMinRank(*this, getInput(), "input", 1)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t rank = in.size();
  int64_t axis = static_cast<int64_t>(getAxis()); // I64Attr: uint64_t
  if (axis < -rank || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for rank "
                         << rank;
  if (axis < 0)
    axis += rank;
  if (ShapedType::isDynamic(in[axis]))
    return emitOpError() << "cannot split the dynamic batch of its input "
                         << formatShape(in)
                         << ": each sample of a dynamic batch is computed on "
                            "its own";
  if (in[axis] % 2 != 0)
    return emitOpError() << "splits axis " << axis << " of its input "
                         << formatShape(in) << " into two halves, but "
                         << in[axis] << " is odd";
  SmallVector<int64_t> expected(in);
  expected[axis] /= 2;
  ArrayRef<int64_t> out = shapeOf(getResult());
  if (out != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape " << formatShape(out) << " should be "
                         << formatShape(expected) << " (the input with axis "
                         << axis << " halved)";
  return success();
}

/// `value` (named `what`) has exactly `expected`'s shape.
static LogicalResult checkShape(Operation *op, Value value, StringRef what,
                                ArrayRef<int64_t> expected, StringRef layout) {
  ArrayRef<int64_t> actual = shapeOf(value);
  if (actual == expected)
    return success();
  return op->emitOpError() << "expects " << what << " of shape "
                           << formatShape(expected) << " " << layout << ", got "
                           << formatShape(actual);
}

/// lstm (and later gru): ONNX's shapes, all static, `gates` gates per
/// direction.
template <typename OpTy>
static LogicalResult verifyRecurrent(OpTy op, int64_t gates) {
  StringRef direction = op.getDirection();
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return op.emitOpError() << "direction must be \"forward\", \"reverse\" "
                               "or \"bidirectional\", got \""
                            << direction << "\"";
  int64_t layout = static_cast<int64_t>(op.getLayout());
  if (layout != 0 && layout != 1)
    return op.emitOpError() << "layout must be 0 (time first) or 1 (batch "
                               "first), got "
                            << layout;
  if (PrecisionAttr state = op.getStatePrecisionAttr();
      state && !state.isFloat())
    return op.emitOpError() << "state precision must be a float format "
                               "(f16, bf16, f32, f64), got "
                            << state.str();
  for (Value v : op->getOperands())
    if (!cast<ShapedType>(v.getType()).hasStaticShape())
      return op.emitOpError()
             << "cannot take the dynamic shape " << formatShape(shapeOf(v))
             << ": its time steps and batch must be static";
  for (Value v : op->getResults())
    if (!cast<ShapedType>(v.getType()).hasStaticShape())
      return op.emitOpError() << "cannot have the dynamic result shape "
                              << formatShape(shapeOf(v))
                              << ": its time steps and batch must be static";
  if (shapeOf(op.getInput()).size() != 3)
    return op.emitOpError() << "expects an input of rank 3, got "
                            << formatShape(shapeOf(op.getInput()));
  ArrayRef<int64_t> w = shapeOf(op.getW());
  if (w.size() != 3 || w[1] % gates != 0 || w[1] == 0)
    return op.emitOpError() << "expects w of shape [D, " << gates
                            << "H, I], got " << formatShape(w);
  int64_t d = op.getNumDirections(), h = w[1] / gates;
  ArrayRef<int64_t> x = shapeOf(op.getInput());
  int64_t s = layout == 0 ? x[0] : x[1], batch = layout == 0 ? x[1] : x[0];
  int64_t in = x[2];
  std::string dims;
  llvm::raw_string_ostream(dims)
      << "(D = " << d << ", H = " << h << ", I = " << in << ")";
  if (failed(checkShape(op, op.getW(), "w", {d, gates * h, in}, dims)) ||
      failed(checkShape(op, op.getR(), "r", {d, gates * h, h}, dims)) ||
      (op.getB() &&
       failed(checkShape(op, op.getB(), "b", {d, 2 * gates * h}, dims))))
    return failure();
  SmallVector<int64_t> state = layout == 0 ? SmallVector<int64_t>{d, batch, h}
                                           : SmallVector<int64_t>{batch, d, h};
  SmallVector<int64_t> y = layout == 0 ? SmallVector<int64_t>{s, d, batch, h}
                                       : SmallVector<int64_t>{batch, s, d, h};
  std::string where = "(layout " + std::to_string(layout) + ")";
  if ((op.getInitialH() &&
       failed(checkShape(op, op.getInitialH(), "initial_h", state, where))) ||
      failed(checkShape(op, op.getY(), "result y", y, where)) ||
      failed(checkShape(op, op.getYH(), "result y_h", state, where)))
    return failure();
  return success();
}

LogicalResult LstmOp::verify() {
  if (failed(verifyRecurrent(*this, 4)))
    return failure();
  SmallVector<int64_t> state(shapeOf(getYH()));
  std::string where =
      "(layout " + std::to_string(static_cast<int64_t>(getLayout())) + ")";
  if ((getInitialC() &&
       failed(checkShape(*this, getInitialC(), "initial_c", state, where))) ||
      failed(checkShape(*this, getYC(), "result y_c", state, where)))
    return failure();
  return success();
}

LogicalResult GruOp::verify() {
  int64_t lbr = static_cast<int64_t>(getLinearBeforeReset());
  if (lbr != 0 && lbr != 1)
    return emitOpError() << "linear_before_reset must be 0 or 1, got " << lbr;
  return verifyRecurrent(*this, 3);
}

#define MIX_BINARY_VERIFIER(OP)                                                \
  LogicalResult OP::verify() {                                                 \
    return checkBroadcast(*this, getLhs(), getRhs());                          \
  }
MIX_BINARY_VERIFIER(SubOp)
MIX_BINARY_VERIFIER(DivOp)
MIX_BINARY_VERIFIER(PowOp)
MIX_BINARY_VERIFIER(MaximumOp)
MIX_BINARY_VERIFIER(MinimumOp)
#undef MIX_BINARY_VERIFIER

/// The output size of a ceil_mode pooling window along one dimension:
/// ceil((in + pads - span) / stride) + 1, less one when the last window
/// would start at or past the input's end in padded coordinates (PyTorch's
/// rule, also ONNX's reference), so that every window starts inside the
/// input or its leading padding.
static FailureOr<int64_t> ceilWindowOutput(Operation *op, StringRef dimName,
                                           int64_t in, int64_t padBefore,
                                           int64_t padAfter, int64_t window,
                                           int64_t stride, int64_t dilation) {
  FailureOr<int64_t> floorSize = windowOutput(
      op, dimName, in, padBefore, padAfter, window, stride, dilation);
  if (failed(floorSize))
    return failure();
  int64_t span = dilation * (window - 1) + 1;
  int64_t size = *floorSize;
  if ((in + padBefore + padAfter - span) % stride != 0)
    ++size;
  if ((size - 1) * stride >= in + padBefore)
    --size;
  return size;
}

/// Shapes and window of max_pool2d and avg_pool2d.
template <typename OpTy> static LogicalResult verifyPool2D(OpTy op) {
  if (failed(checkRank(op, op.getInput(), "input", 4)) ||
      failed(checkArraySize(op, "kernel", op.getKernel(), 2, 1)) ||
      failed(checkArraySize(op, "strides", op.getStrides(), 2, 1)) ||
      failed(checkArraySize(op, "padding", op.getPadding(), 4, 0)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(op.getInput()), k = op.getKernel(),
                    s = op.getStrides(), p = op.getPadding();
  if (p[0] >= k[0] || p[2] >= k[0] || p[1] >= k[1] || p[3] >= k[1])
    return op.emitOpError()
           << "padding " << formatShape(p)
           << " must be smaller than the kernel " << formatShape(k);
  FailureOr<int64_t> oh =
      windowOutput(op, "height", in[2], p[0], p[2], k[0], s[0], 1);
  if (failed(oh))
    return failure();
  FailureOr<int64_t> ow =
      windowOutput(op, "width", in[3], p[1], p[3], k[1], s[1], 1);
  if (failed(ow))
    return failure();
  return checkResultShape(op, {in[0], in[1], *oh, *ow});
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// `axis` normalized into [0, rank), or an error naming `name`.
static FailureOr<int64_t> normalizeAxis(Operation *op, StringRef name,
                                        int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError()
           << name << " " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput()), perm = getPermutation();
  int64_t rank = in.size();
  SmallVector<bool> seen(rank, false);
  if (int64_t(perm.size()) != rank)
    return emitOpError() << "permutation " << formatShape(perm) << " has "
                         << perm.size() << " entries for rank " << rank;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOpError() << "permutation " << formatShape(perm)
                           << " is not a permutation of 0.." << rank - 1;
    seen[p] = true;
  }
  if (rank > 0 && perm[0] != 0 &&
      failed(checkNoDynamicBatch(*this, getInput(), "input",
                                 "the permutation moves dimension 0")))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t p : perm)
    expected.push_back(in[p]);
  return checkResultShape(*this, expected);
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  ArrayRef<int64_t> first = shapeOf(getInputs()[0]);
  int64_t rank = first.size();
  FailureOr<int64_t> axis = normalizeAxis(*this, "axis", getAxis(), rank);
  if (failed(axis))
    return failure();
  // The batch first: its size is not a number to add.
  if (*axis == 0)
    for (Value v : getInputs())
      if (failed(checkNoDynamicBatch(*this, v, "input",
                                     "it concatenates along axis 0")))
        return failure();
  SmallVector<int64_t> expected(first);
  for (auto [i, v] : llvm::enumerate(getInputs().drop_front())) {
    ArrayRef<int64_t> shape = shapeOf(v);
    bool compatible = int64_t(shape.size()) == rank;
    for (int64_t d = 0; compatible && d < rank; ++d)
      compatible = d == *axis || shape[d] == first[d];
    if (!compatible)
      return emitOpError() << "input " << i + 1 << " " << formatShape(shape)
                           << " does not match input 0 " << formatShape(first)
                           << " outside axis " << *axis;
    if (llvm::AddOverflow(expected[*axis], shape[*axis], expected[*axis]))
      return emitOpError() << "the concatenated size along axis " << *axis
                           << " overflows";
  }
  return checkResultShape(*this, expected);
}

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t rank = in.size();
  ArrayRef<int64_t> axes = getAxes(), starts = getStarts(), ends = getEnds(),
                    steps = getSteps();
  if (starts.size() != axes.size() || ends.size() != axes.size() ||
      steps.size() != axes.size())
    return emitOpError() << "axes, starts, ends and steps must have one "
                            "entry per sliced axis";
  SmallVector<int64_t> expected(in);
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(*this, "axis", axes[i], rank);
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return emitOpError() << "axis " << *axis << " is sliced twice";
    seen[*axis] = true;
    if (*axis == 0 && failed(checkNoDynamicBatch(*this, getInput(), "input",
                                                 "it slices axis 0")))
      return failure();
    int64_t dim = in[*axis], start = starts[i], end = ends[i], step = steps[i];
    if (step == 0)
      return emitOpError() << "step of axis " << *axis << " is 0";
    // Bounds first: then every difference below is small, and the step's
    // magnitude is taken unsigned (it may be INT64_MIN).
    bool inBounds = end >= -1 && end <= dim && start >= 0 && start <= dim;
    int64_t count = 0;
    if (inBounds) {
      uint64_t magnitude =
          step > 0 ? uint64_t(step) : uint64_t(0) - uint64_t(step);
      int64_t span = step > 0 ? end - start : start - end;
      count = span > 0 ? int64_t(uint64_t(span - 1) / magnitude) + 1 : 0;
      inBounds = count == 0 || start < dim;
    }
    if (!inBounds)
      return emitOpError() << "slice " << start << ":" << end << ":" << step
                           << " of axis " << *axis << " (size " << dim
                           << ") is not clamped: 0 <= start < size and -1 <= "
                              "end <= size";
    expected[*axis] = count;
  }
  return checkResultShape(*this, expected);
}

LogicalResult PadOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput()), pads = getPads();
  int64_t rank = in.size();
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return emitOpError() << "mode '" << mode
                         << "' is not one of constant, reflect, edge";
  if (int64_t(pads.size()) != 2 * rank)
    return emitOpError() << "pads " << formatShape(pads) << " must have "
                         << 2 * rank << " values (before and after each of "
                         << rank << " dimensions)";
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOpError() << "pads " << formatShape(pads)
                         << " must not be negative";
  // Bounded, so that sizes plus pads cannot overflow.
  if (llvm::any_of(pads, [](int64_t p) { return p > kMaxExtent; }))
    return emitOpError() << "pads " << formatShape(pads) << " must be at most "
                         << kMaxExtent;
  if (std::isnan(getValue().convertToDouble()))
    return emitOpError() << "value must not be NaN";
  SmallVector<int64_t> expected(in);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t before = pads[d], after = pads[rank + d];
    if (before == 0 && after == 0)
      continue;
    if (d == 0 && failed(checkNoDynamicBatch(*this, getInput(), "input",
                                             "it pads dimension 0")))
      return failure();
    if (mode == "reflect" && (before >= in[d] || after >= in[d]))
      return emitOpError() << "reflect pads of dimension " << d << " ("
                           << before << ", " << after
                           << ") must be smaller than its size " << in[d];
    if (in[d] == 0)
      return emitOpError() << "cannot pad dimension " << d
                           << ", which is empty";
    if (llvm::AddOverflow(expected[d], before + after, expected[d]))
      return emitOpError() << "the padded size of dimension " << d
                           << " overflows";
  }
  return checkResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// Reductions and pooling
//===----------------------------------------------------------------------===//

/// The reduced axes of a reduction, normalized and sorted: all axes when
/// none are listed.
FailureOr<SmallVector<int64_t>>
mix::checks::reducedAxes(Operation *op, ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d)
      result.push_back(d);
    return result;
  }
  for (int64_t a : axes) {
    FailureOr<int64_t> axis = normalizeAxis(op, "axis", a, rank);
    if (failed(axis))
      return failure();
    if (llvm::is_contained(result, *axis))
      return op->emitOpError() << "axis " << *axis << " is reduced twice";
    result.push_back(*axis);
  }
  llvm::sort(result);
  return result;
}

template <typename OpTy> static LogicalResult verifyReduction(OpTy op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  FailureOr<SmallVector<int64_t>> axes =
      reducedAxes(op, op.getAxes(), int64_t(in.size()));
  if (failed(axes))
    return failure();
  if (llvm::is_contained(*axes, 0) &&
      failed(
          checkNoDynamicBatch(op, op.getInput(), "input", "it reduces axis 0")))
    return failure();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < int64_t(in.size()); ++d) {
    if (!llvm::is_contained(*axes, d))
      expected.push_back(in[d]);
    else if (op.getKeepdims())
      expected.push_back(1);
  }
  return checkResultShape(op, expected);
}

LogicalResult ReduceSumOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceMeanOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceL2Op::verify() { return verifyReduction(*this); }
LogicalResult ReduceProdOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceMinOp::verify() { return verifyReduction(*this); }

LogicalResult AvgPool2DOp::verify() { return verifyPool2D(*this); }

/// argmax / argmin: one axis, not the dynamic batch, of at least one
/// element; the result the input's shape without it (or with 1).
template <typename OpTy> static LogicalResult verifyArgExtremum(OpTy op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  FailureOr<int64_t> axis =
      normalizeAxis(op, "axis", int64_t(op.getAxis()), int64_t(in.size()));
  if (failed(axis))
    return failure();
  if (*axis == 0 &&
      failed(checkNoDynamicBatch(op, op.getInput(), "input", "its axis is 0")))
    return failure();
  if (in[*axis] == 0)
    return op.emitOpError()
           << "axis " << *axis << " is empty: an empty slice has no "
           << op->getName().stripDialect();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < int64_t(in.size()); ++d) {
    if (d != *axis)
      expected.push_back(in[d]);
    else if (op.getKeepdims())
      expected.push_back(1);
  }
  return checkResultShape(op, expected);
}

LogicalResult ArgMaxOp::verify() { return verifyArgExtremum(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgExtremum(*this); }

//===----------------------------------------------------------------------===//
// Upsampling
//===----------------------------------------------------------------------===//

LogicalResult ConvTranspose2DOp::verify() {
  if (failed(checkRank(*this, getInput(), "input", 4)) ||
      failed(checkRank(*this, getWeight(), "weight", 4)) ||
      failed(checkArraySize(*this, "strides", getStrides(), 2, 1)) ||
      failed(checkArraySize(*this, "dilations", getDilations(), 2, 1)) ||
      failed(checkArraySize(*this, "padding", getPadding(), 4, 0)) ||
      failed(checkArraySize(*this, "output_padding", getOutputPadding(), 2, 0)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), w = shapeOf(getWeight());
  ArrayRef<int64_t> s = getStrides(), d = getDilations(), p = getPadding(),
                    op = getOutputPadding();
  int64_t groups = static_cast<int64_t>(getGroups());
  if (groups < 1)
    return emitOpError() << "expects groups >= 1, got " << groups;
  // Bounded, so that the output size below cannot overflow.
  for (ArrayRef<int64_t> values : {s, d, p, op})
    if (llvm::any_of(values, [](int64_t v) { return v > kMaxExtent; }))
      return emitOpError() << "strides, dilations and paddings must be at "
                              "most "
                           << kMaxExtent;
  if (in[1] != w[0])
    return emitOpError() << "input channels (" << in[1]
                         << ") do not match the weight's first dimension ("
                         << w[0] << "); the weight is [C, F / groups, KH, KW]";
  if (in[1] % groups != 0)
    return emitOpError() << "input channels (" << in[1]
                         << ") are not divisible by groups (" << groups << ")";
  for (int i = 0; i < 2; ++i)
    if (op[i] >= s[i] && op[i] >= d[i])
      return emitOpError() << "output_padding " << formatShape(op)
                           << " must be smaller than the stride or the "
                              "dilation";
  if (getBias() && failed(checkVector(*this, getBias(), "bias", w[1] * groups,
                                      "output channels")))
    return failure();
  SmallVector<int64_t> expected = {in[0], w[1] * groups};
  for (int i = 0; i < 2; ++i) {
    // (in - 1) * stride - pads + dilation * (k - 1) + output_padding + 1,
    // checked: the dimensions themselves may be huge.
    int64_t grown, reach, size;
    bool overflow = llvm::MulOverflow(in[2 + i] - 1, s[i], grown) ||
                    llvm::MulOverflow(d[i], w[2 + i] - 1, reach) ||
                    llvm::AddOverflow(grown, reach, size) ||
                    llvm::AddOverflow(size, op[i] + 1 - p[i] - p[2 + i], size);
    if (overflow)
      return emitOpError() << "the output size along "
                           << (i == 0 ? "the height" : "the width")
                           << " overflows";
    if (size < 1)
      return emitOpError() << "padding " << formatShape(p)
                           << " leaves no output along "
                           << (i == 0 ? "the height" : "the width");
    expected.push_back(size);
  }
  return checkResultShape(*this, expected);
}

LogicalResult ResizeOp::verify() {
  if (failed(checkRank(*this, getInput(), "input", 4)))
    return failure();
  StringRef mode = getMode(), coordinates = getCoordinateMode(),
            nearest = getNearestMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitOpError() << "mode '" << mode
                         << "' is not one of nearest, linear, cubic";
  if (coordinates != "half_pixel" && coordinates != "pytorch_half_pixel" &&
      coordinates != "asymmetric" && coordinates != "align_corners")
    return emitOpError() << "coordinate_mode '" << coordinates
                         << "' is not one of half_pixel, pytorch_half_pixel, "
                            "asymmetric, align_corners";
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" &&
      nearest != "floor" && nearest != "ceil")
    return emitOpError() << "nearest_mode '" << nearest
                         << "' is not one of round_prefer_floor, "
                            "round_prefer_ceil, floor, ceil";
  ArrayRef<double> scales = getScales();
  if (scales.size() != 2)
    return emitOpError() << "scales must have 2 values (height, width), got "
                         << scales.size();
  ArrayRef<int64_t> in = shapeOf(getInput());
  SmallVector<int64_t> expected = {in[0], in[1]};
  for (int i = 0; i < 2; ++i) {
    if (!(scales[i] > 0) || !std::isfinite(scales[i]))
      return emitOpError() << "scales must be positive and finite, got "
                           << formatNumber(scales[i]);
    double size = std::floor(double(in[2 + i]) * scales[i]);
    if (size < 1 || size > double(std::numeric_limits<int32_t>::max()))
      return emitOpError() << "scale " << formatNumber(scales[i])
                           << " gives an output size of " << size;
    expected.push_back(int64_t(size));
  }
  return checkResultShape(*this, expected);
}

LogicalResult EmbeddingOp::verify() {
  if (failed(checkRank(*this, getTable(), "table", 2)))
    return failure();
  SmallVector<int64_t> expected(shapeOf(getIndices()));
  expected.push_back(shapeOf(getTable())[1]);
  return checkResultShape(*this, expected);
}

LogicalResult GlobalAvgPoolOp::verify() {
  if (failed(checkRank(*this, getInput(), "input", 4)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  return checkResultShape(*this, {in[0], in[1]});
}

/// max_pool2d: verifyPool2D's checks, with dilations and ceil_mode.
LogicalResult MaxPool2DOp::verify() {
  if (failed(checkRank(*this, getInput(), "input", 4)) ||
      failed(checkArraySize(*this, "kernel", getKernel(), 2, 1)) ||
      failed(checkArraySize(*this, "strides", getStrides(), 2, 1)) ||
      failed(checkArraySize(*this, "dilations", getDilations(), 2, 1)) ||
      failed(checkArraySize(*this, "padding", getPadding(), 4, 0)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), k = getKernel(), s = getStrides(),
                    d = getDilations(), p = getPadding();
  // Bounded, so that spans and padded sizes cannot overflow.
  for (ArrayRef<int64_t> values : {k, s, d, p})
    if (llvm::any_of(values, [](int64_t v) { return v > kMaxExtent; }))
      return emitOpError() << "kernel, strides, dilations and padding must "
                              "be at most "
                           << kMaxExtent;
  if (p[0] >= k[0] || p[2] >= k[0] || p[1] >= k[1] || p[3] >= k[1])
    return emitOpError() << "padding " << formatShape(p)
                         << " must be smaller than the kernel "
                         << formatShape(k);
  auto output = getCeilMode() ? ceilWindowOutput : windowOutput;
  FailureOr<int64_t> oh =
      output(*this, "height", in[2], p[0], p[2], k[0], s[0], d[0]);
  if (failed(oh))
    return failure();
  FailureOr<int64_t> ow =
      output(*this, "width", in[3], p[1], p[3], k[1], s[1], d[1]);
  if (failed(ow))
    return failure();
  return checkResultShape(*this, {in[0], in[1], *oh, *ow});
}

//===----------------------------------------------------------------------===//
// Gather and expand
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t rank = in.size();
  if (rank == 0)
    return emitOpError() << "cannot gather from a rank-0 input";
  FailureOr<int64_t> axis =
      normalizeAxis(*this, "axis", static_cast<int64_t>(getAxis()), rank);
  if (failed(axis))
    return failure();
  if (*axis == 0 && failed(checkNoDynamicBatch(*this, getInput(), "input",
                                               "it gathers along axis 0")))
    return failure();
  // Exactly one source of indices.
  std::optional<DenseIntElementsAttr> constant = getIndices();
  Value runtime = getRuntimeIndices();
  if (bool(constant) == bool(runtime))
    return emitOpError() << "needs either the `indices` attribute or an "
                            "indices operand, not "
                         << (runtime ? "both" : "neither");
  ArrayRef<int64_t> indicesShape;
  if (runtime) {
    indicesShape = shapeOf(runtime);
    if (llvm::any_of(indicesShape, ShapedType::isDynamic))
      return emitOpError() << "run-time indices must have a static shape, got "
                           << formatShape(indicesShape);
    // Compiled code clamps every index into the axis: it must not be empty.
    if (in[*axis] == 0 && ShapedType::getNumElements(indicesShape) != 0)
      return emitOpError() << "cannot gather by run-time indices along axis "
                           << *axis << " of size 0";
  } else {
    indicesShape = cast<ShapedType>(constant->getType()).getShape();
    int64_t dim = in[*axis];
    for (auto [i, index] : llvm::enumerate(constant->getValues<int64_t>()))
      if (index < 0 || index >= dim)
        return emitOpError() << "index " << index << " (element " << i
                             << " of indices) is out of range [0, " << dim
                             << ") along axis " << *axis;
  }
  SmallVector<int64_t> expected(in.take_front(*axis));
  llvm::append_range(expected, indicesShape);
  llvm::append_range(expected, in.drop_front(*axis + 1));
  return checkResultShape(*this, expected);
}

LogicalResult ExpandOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  if (out.size() < in.size())
    return emitOpError() << "result " << formatShape(out)
                         << " has a lower rank than the input "
                         << formatShape(in);
  bool inBatch = hasDynamicBatch(getInput()),
       outBatch = hasDynamicBatch(getResult());
  if (inBatch != outBatch || (inBatch && in.size() != out.size()))
    return emitOpError() << "cannot expand " << formatShape(in) << " to "
                         << formatShape(out)
                         << ": a dynamic batch must stay the leading "
                            "dimension of both";
  // A small input expands to any size: the result's bytes (8 per element at
  // most) must be countable.
  int64_t bytes = 8;
  for (int64_t d : out)
    if (!ShapedType::isDynamic(d) && llvm::MulOverflow(bytes, d, bytes))
      return emitOpError() << "the size of the result " << formatShape(out)
                           << " overflows";
  size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t from = in[i], to = out[offset + i];
    if (ShapedType::isDynamic(from) && ShapedType::isDynamic(to))
      continue;
    if (from != to && from != 1)
      return emitOpError() << "cannot expand " << formatShape(in) << " to "
                           << formatShape(out) << ": input dimension " << i
                           << " (" << from << ") is neither 1 nor " << to;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Compare and where
//===----------------------------------------------------------------------===//

/// The predicates of mix.compare: ordered, then unordered.
static constexpr llvm::StringLiteral kComparePredicates[] = {
    "eq", "ne", "lt", "le", "gt", "ge", "ult", "ule", "ugt", "uge"};

LogicalResult CompareOp::verify() {
  if (!llvm::is_contained(kComparePredicates, getPredicate()))
    return emitOpError() << "predicate \"" << getPredicate()
                         << "\" is not one of eq, ne, lt, le, gt, ge, ult, "
                            "ule, ugt, uge";
  Type lhs = getElementTypeOrSelf(getLhs().getType());
  Type rhs = getElementTypeOrSelf(getRhs().getType());
  if ((isa<IntegerType>(lhs) || isa<IntegerType>(rhs)) && lhs != rhs) {
    InFlightDiagnostic diag = emitOpError()
                              << "compares " << lhs << " with " << rhs
                              << ": integer operands must have the same type";
    diag.attachNote(getLoc())
        << (isa<FloatType>(lhs) || isa<FloatType>(rhs)
                ? "convert the integer operand with mix.cast to compare it "
                  "with a float"
                : "integers of different widths are not compared (ONNX's "
                  "comparisons take two operands of one type)");
    return diag;
  }
  return checkBroadcast(*this, getLhs(), getRhs());
}

LogicalResult LogicalOp::verify() {
  StringRef kind = getKind();
  if (kind != "and" && kind != "or" && kind != "xor" && kind != "not")
    return emitOpError() << "kind \"" << kind
                         << "\" is not one of and, or, xor, not";
  size_t expected = kind == "not" ? 1 : 2;
  if (getMasks().size() != expected)
    return emitOpError() << "'" << kind << "' takes " << expected << " mask"
                         << (expected == 1 ? "" : "s") << ", not "
                         << getMasks().size();
  if (kind == "not")
    return checkResultShape(*this, shapeOf(getMasks()[0]));
  return checkBroadcast(*this, getMasks()[0], getMasks()[1]);
}

LogicalResult WhereOp::verify() {
  ArrayRef<int64_t> c = shapeOf(getCondition()), x = shapeOf(getX()),
                    y = shapeOf(getY());
  size_t rank = std::max({c.size(), x.size(), y.size()});
  SmallVector<int64_t> expected(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t dim = 1;
    for (ArrayRef<int64_t> s : {c, x, y}) {
      int64_t d = i < rank - s.size() ? 1 : s[i - (rank - s.size())];
      if (d == 1 || d == dim)
        continue;
      if (dim != 1)
        return emitOpError()
               << "operand shapes " << formatShape(c) << ", " << formatShape(x)
               << " and " << formatShape(y) << " are not broadcastable";
      dim = d;
    }
    expected[i] = dim;
  }
  return checkResultShape(*this, expected);
}

LogicalResult ReshapeOp::verify() {
  auto in = cast<ShapedType>(getInput().getType());
  auto out = cast<ShapedType>(getType());
  bool dynamic = !in.hasStaticShape() || !out.hasStaticShape();
  if (dynamic && (in.getRank() == 0 || out.getRank() == 0 ||
                  !in.isDynamicDim(0) || !out.isDynamicDim(0)))
    return emitOpError() << "cannot reshape " << formatShape(in.getShape())
                         << " into " << formatShape(out.getShape())
                         << ": the dynamic batch must stay the leading "
                            "dimension of both";
  // The element counts (per sample with a dynamic batch: the rest of each
  // sample is reshaped), computed without overflow.
  auto elements = [&](ShapedType type) -> std::optional<int64_t> {
    int64_t n = 1;
    for (int64_t d : dynamic ? type.getShape().drop_front() : type.getShape())
      if (llvm::MulOverflow(n, d, n))
        return std::nullopt;
    return n;
  };
  const char *what = dynamic ? " elements per sample" : " elements";
  std::optional<int64_t> from = elements(in), to = elements(out);
  auto describe = [&](ShapedType type, std::optional<int64_t> n) {
    return formatShape(type.getShape()) + " (" +
           (n ? std::to_string(*n) + what
              : std::string("a count of") + what + " that overflows int64") +
           ")";
  };
  if (!from || !to || *from != *to)
    return emitOpError() << "cannot reshape " << describe(in, from) << " into "
                         << describe(out, to);
  return success();
}

LogicalResult FlattenOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t start = getStartDim();
  if (start < 0 ||
      start >= static_cast<int64_t>(std::max<size_t>(in.size(), 1)))
    return emitOpError() << "start_dim " << start
                         << " is out of range for rank " << in.size();
  if (start == 0 &&
      failed(checkNoDynamicBatch(*this, getInput(), "input",
                                 "start_dim 0 folds the batch into one "
                                 "dimension (use start_dim >= 1)")))
    return failure();
  SmallVector<int64_t> expected(in.take_front(start));
  int64_t rest = 1;
  for (int64_t d : in.drop_front(start))
    rest *= d;
  expected.push_back(rest);
  return checkResultShape(*this, expected);
}

LogicalResult AttentionOp::verify() {
  if (failed(checkRank(*this, getInput(), "input", 3)))
    return failure();
  int64_t e = shapeOf(getInput())[2];
  int64_t heads = getNumHeads();
  if (heads < 1)
    return emitOpError() << "expects num_heads >= 1, got " << heads;
  if (e % heads != 0)
    return emitOpError() << "embedding size " << e
                         << " is not divisible by num_heads (" << heads << ")";
  std::pair<Value, StringRef> weights[] = {
      {getWq(), "wq"}, {getWk(), "wk"}, {getWv(), "wv"}, {getWo(), "wo"}};
  for (auto [value, name] : weights) {
    ArrayRef<int64_t> shape = shapeOf(value);
    if (shape.size() == 2 && shape[0] == e && shape[1] == e)
      continue;
    InFlightDiagnostic diag = emitOpError()
                              << "expects " << name << " of shape [" << e
                              << ", " << e << "], got " << formatShape(shape);
    noteDefinition(diag, value, name);
    return diag;
  }
  std::pair<Value, StringRef> biases[] = {
      {getBq(), "bq"}, {getBk(), "bk"}, {getBv(), "bv"}, {getBo(), "bo"}};
  for (auto [value, name] : biases)
    if (value && failed(checkVector(*this, value, name, e, "embedding")))
      return failure();
  if (getMask() &&
      failed(checkAttentionMask(*this, getMask(), getInput(), heads)))
    return failure();
  return checkSameShape(*this, getInput(), "input");
}

LogicalResult CrossEntropyLossOp::verify() {
  if (failed(checkRank(*this, getLogits(), "logits", 2)) ||
      failed(checkRank(*this, getLabels(), "labels", 1)) ||
      failed(checkNoDynamicBatch(*this, getLogits(), "logits",
                                 "a loss averages over the batch")) ||
      failed(checkNoDynamicBatch(*this, getLabels(), "labels",
                                 "a loss averages over the batch")))
    return failure();
  int64_t n = shapeOf(getLogits())[0], labels = shapeOf(getLabels())[0];
  if (n != labels)
    return emitOpError() << "has " << n << " rows of logits but " << labels
                         << " labels";
  return success();
}

LogicalResult MseLossOp::verify() {
  if (failed(checkNoDynamicBatch(*this, getPrediction(), "prediction",
                                 "a loss averages over the batch")) ||
      failed(checkNoDynamicBatch(*this, getTarget(), "target",
                                 "a loss averages over the batch")))
    return failure();
  if (shapeOf(getPrediction()) != shapeOf(getTarget()))
    return emitOpError() << "prediction shape "
                         << formatShape(shapeOf(getPrediction()))
                         << " differs from the target shape "
                         << formatShape(shapeOf(getTarget()));
  return success();
}
