//===- MixOpsVerify.cpp - mix operation verifiers -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Shape, element type and structure checks of every mix op. Precision
// legality common to all layers is in MixInterfaces.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixOps.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mix;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

/// Attaches "<what> defined here" at the op producing `value`, when there is
/// one (block arguments have no defining op).
static void noteDefinition(InFlightDiagnostic &diag, Value value,
                           StringRef what) {
  if (Operation *def = value.getDefiningOp())
    diag.attachNote(def->getLoc()) << what << " defined here";
}

static LogicalResult checkRank(Operation *op, Value value, StringRef what,
                               int64_t rank) {
  int64_t actual = cast<ShapedType>(value.getType()).getRank();
  if (actual == rank)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "expects " << what << " of rank " << rank
                            << ", got rank " << actual << " "
                            << formatShape(shapeOf(value));
  noteDefinition(diag, value, what);
  return diag;
}

static LogicalResult checkMinRank(Operation *op, Value value, StringRef what,
                                  int64_t rank) {
  int64_t actual = cast<ShapedType>(value.getType()).getRank();
  if (actual >= rank)
    return success();
  return op->emitOpError() << "expects " << what << " of rank >= " << rank
                           << ", got rank " << actual;
}

/// Checks that a per-channel parameter (bias, norm parameters) is `[size]`.
static LogicalResult checkVector(Operation *op, Value value, StringRef what,
                                 int64_t size, StringRef sizeName) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() == 1 && shape[0] == size)
    return success();
  InFlightDiagnostic diag =
      op->emitOpError() << "expects " << what << " of shape [" << size << "] ("
                        << sizeName << "), got " << formatShape(shape);
  noteDefinition(diag, value, what);
  return diag;
}

static LogicalResult checkResultShape(Operation *op,
                                      ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual = shapeOf(op->getResult(0));
  if (actual == expected)
    return success();
  return op->emitOpError() << "result shape " << formatShape(actual)
                           << " does not match the expected shape "
                           << formatShape(expected);
}

static LogicalResult checkArraySize(Operation *op, StringRef name,
                                    ArrayRef<int64_t> values, size_t size,
                                    int64_t minValue) {
  if (values.size() != size)
    return op->emitOpError() << "expects '" << name << "' to have " << size
                             << " values, got " << values.size();
  for (int64_t v : values)
    if (v < minValue)
      return op->emitOpError()
             << "expects every '" << name << "' value >= " << minValue
             << ", got " << formatShape(values);
  return success();
}

/// Output size of a strided window along one dimension, or failure.
static FailureOr<int64_t> windowOutput(Operation *op, StringRef dimName,
                                       int64_t in, int64_t padBefore,
                                       int64_t padAfter, int64_t window,
                                       int64_t stride, int64_t dilation) {
  int64_t span = dilation * (window - 1) + 1;
  int64_t padded = in + padBefore + padAfter;
  if (padded < span) {
    op->emitOpError() << "window of extent " << span << " does not fit the "
                      << dimName << " dimension (" << in << " + padding "
                      << padBefore + padAfter << ")";
    return failure();
  }
  return (padded - span) / stride + 1;
}

static LogicalResult checkSameShape(Operation *op, Value value,
                                    StringRef what) {
  if (shapeOf(value) == shapeOf(op->getResult(0)))
    return success();
  return op->emitOpError() << "result shape "
                           << formatShape(shapeOf(op->getResult(0)))
                           << " differs from the " << what << " shape "
                           << formatShape(shapeOf(value));
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

static LogicalResult checkScopePrecision(Operation *op, PrecisionAttr p) {
  if (p && p.getKind() == PrecisionKind::i32)
    return op->emitOpError()
           << "precision cannot be i32 (i32 is only an accumulator precision)";
  return success();
}

LogicalResult NetworkOp::verify() {
  if (getSymName().empty())
    return emitOpError() << "name cannot be empty";
  if (failed(checkScopePrecision(*this, getPrecision())))
    return failure();
  Block &entry = getBody().front();
  ArrayRef<Type> inputs = getFunctionType().getInputs();
  if (entry.getNumArguments() != inputs.size())
    return emitOpError() << "body has " << entry.getNumArguments()
                         << " arguments, but the signature has "
                         << inputs.size() << " inputs";
  for (auto [i, arg, type] : llvm::enumerate(entry.getArguments(), inputs))
    if (arg.getType() != type)
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << ", but the signature says "
                           << type;
  return success();
}

LogicalResult ReturnOp::verify() {
  auto network = cast<NetworkOp>((*this)->getParentOp());
  ArrayRef<Type> expected = network.getFunctionType().getResults();
  if (getValues().size() != expected.size()) {
    InFlightDiagnostic diag = emitOpError()
                              << "returns " << getValues().size()
                              << " value(s), but the network declares "
                              << expected.size() << " output(s)";
    diag.attachNote(network.getLoc()) << "network declared here";
    return diag;
  }
  for (auto [i, value, type] : llvm::enumerate(getValues(), expected)) {
    if (value.getType() == type)
      continue;
    InFlightDiagnostic diag =
        emitOpError() << "output #" << i << " has type " << value.getType()
                      << ", but the network declares " << type;
    diag.attachNote(network.getLoc()) << "network declared here";
    return diag;
  }
  return success();
}

LogicalResult BlockOp::verify() {
  if (failed(checkScopePrecision(*this, getPrecisionAttr())))
    return failure();
  if (StringAttr name = getSymNameAttr(); name && name.getValue().empty())
    return emitOpError() << "block name cannot be empty";
  return success();
}

LogicalResult BlockOp::verifyRegions() {
  Block &entry = getBody().front();
  if (entry.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << entry.getNumArguments()
                         << " arguments, but the block binds "
                         << getInputs().size() << " value(s)";
  for (auto [i, arg, input] :
       llvm::enumerate(entry.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType()
                           << ", but is bound to a value of type "
                           << input.getType();
  auto yield = dyn_cast<YieldOp>(entry.getTerminator());
  if (!yield)
    return emitOpError() << "body must end with 'mix.yield'";
  if (yield.getValues().size() != getNumResults()) {
    InFlightDiagnostic diag = emitOpError()
                              << "has " << getNumResults()
                              << " result(s), but its body yields "
                              << yield.getValues().size() << " value(s)";
    diag.attachNote(yield.getLoc()) << "yield is here";
    return diag;
  }
  for (auto [i, result, value] :
       llvm::enumerate(getResults(), yield.getValues())) {
    if (result.getType() == value.getType())
      continue;
    InFlightDiagnostic diag =
        emitOpError() << "result #" << i << " has type " << result.getType()
                      << ", but its body yields " << value.getType();
    diag.attachNote(yield.getLoc()) << "yield is here";
    return diag;
  }
  return success();
}

LogicalResult WeightOp::verify() {
  if (!!getValueAttr() == !!getRefAttr())
    return emitOpError()
           << "must have exactly one of inline data or an external reference";
  if (StringAttr ref = getRefAttr(); ref && ref.getValue().empty())
    return emitOpError() << "external weight reference cannot be empty";
  if (ElementsAttr value = getValueAttr();
      value && value.getType() != getType())
    return emitOpError() << "inline data of type " << value.getType()
                         << " does not match the result type " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

/// Shapes of dense and qdense.
template <typename OpTy> static LogicalResult verifyDenseShapes(OpTy op) {
  if (failed(checkMinRank(op, op.getInput(), "input", 1)) ||
      failed(checkRank(op, op.getWeight(), "weight", 2)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(op.getInput()), w = shapeOf(op.getWeight());
  if (in.back() != w[0]) {
    InFlightDiagnostic diag = op.emitOpError()
                              << "input features (" << in.back()
                              << ") do not match the weight's rows (" << w[0]
                              << "); the weight is [in_features, "
                                 "out_features]";
    noteDefinition(diag, op.getWeight(), "weight");
    return diag;
  }
  if (op.getBias() &&
      failed(checkVector(op, op.getBias(), "bias", w[1], "out_features")))
    return failure();
  SmallVector<int64_t> expected(in.drop_back());
  expected.push_back(w[1]);
  return checkResultShape(op, expected);
}

LogicalResult DenseOp::verify() { return verifyDenseShapes(*this); }

/// Shapes of matmul and qmatmul.
template <typename OpTy> static LogicalResult verifyMatmulShapes(OpTy op) {
  if (failed(checkMinRank(op, op.getLhs(), "lhs", 2)) ||
      failed(checkMinRank(op, op.getRhs(), "rhs", 2)))
    return failure();
  ArrayRef<int64_t> a = shapeOf(op.getLhs()), b = shapeOf(op.getRhs());
  if (a.size() != b.size())
    return op.emitOpError() << "operands have different ranks (" << a.size()
                            << " and " << b.size() << ")";
  if (a.drop_back(2) != b.drop_back(2))
    return op.emitOpError() << "batch dimensions differ: "
                            << formatShape(a.drop_back(2)) << " and "
                            << formatShape(b.drop_back(2));
  if (a.back() != b[b.size() - 2])
    return op.emitOpError() << "contraction dimensions differ: lhs has K = "
                            << a.back() << ", rhs has K = " << b[b.size() - 2];
  SmallVector<int64_t> expected(a.drop_back());
  expected.push_back(b.back());
  return checkResultShape(op, expected);
}

LogicalResult MatmulOp::verify() { return verifyMatmulShapes(*this); }

/// Shapes and attributes of conv2d and qconv2d.
template <typename OpTy> static LogicalResult verifyConvShapes(OpTy op) {
  if (failed(checkRank(op, op.getInput(), "input", 4)) ||
      failed(checkRank(op, op.getWeight(), "weight", 4)) ||
      failed(checkArraySize(op, "strides", op.getStrides(), 2, 1)) ||
      failed(checkArraySize(op, "dilations", op.getDilations(), 2, 1)) ||
      failed(checkArraySize(op, "padding", op.getPadding(), 4, 0)))
    return failure();
  int64_t groups = op.getGroups();
  if (groups < 1)
    return op.emitOpError() << "expects groups >= 1, got " << groups;
  ArrayRef<int64_t> in = shapeOf(op.getInput()), w = shapeOf(op.getWeight());
  if (in[1] % groups != 0)
    return op.emitOpError() << "input channels (" << in[1]
                         << ") are not divisible by groups (" << groups << ")";
  if (w[0] % groups != 0)
    return op.emitOpError() << "output channels (" << w[0]
                         << ") are not divisible by groups (" << groups << ")";
  if (w[1] * groups != in[1]) {
    InFlightDiagnostic diag = op.emitOpError()
                              << "channel mismatch: the input has " << in[1]
                              << " channels, but the weight expects " << w[1]
                              << " per group x " << groups << " group(s)";
    noteDefinition(diag, op.getWeight(), "weight");
    return diag;
  }
  if (op.getBias() &&
      failed(checkVector(op, op.getBias(), "bias", w[0], "output channels")))
    return failure();
  ArrayRef<int64_t> s = op.getStrides(), d = op.getDilations(), p = op.getPadding();
  FailureOr<int64_t> oh =
      windowOutput(op, "height", in[2], p[0], p[2], w[2], s[0], d[0]);
  if (failed(oh))
    return failure();
  FailureOr<int64_t> ow =
      windowOutput(op, "width", in[3], p[1], p[3], w[3], s[1], d[1]);
  if (failed(ow))
    return failure();
  return checkResultShape(op, {in[0], w[0], *oh, *ow});
}

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

LogicalResult LayerNormOp::verify() {
  if (failed(checkMinRank(*this, getInput(), "input", 1)))
    return failure();
  int64_t d = shapeOf(getInput()).back();
  if (failed(checkVector(*this, getGamma(), "gamma", d, "last dimension")) ||
      failed(checkVector(*this, getBeta(), "beta", d, "last dimension")))
    return failure();
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "expects epsilon > 0";
  return checkSameShape(*this, getInput(), "input");
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = shapeOf(getInput()).size();
  int64_t axis = getAxis();
  if (axis < -rank || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for rank "
                         << rank;
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

LogicalResult MaxPool2DOp::verify() {
  if (failed(checkRank(*this, getInput(), "input", 4)) ||
      failed(checkArraySize(*this, "kernel", getKernel(), 2, 1)) ||
      failed(checkArraySize(*this, "strides", getStrides(), 2, 1)) ||
      failed(checkArraySize(*this, "padding", getPadding(), 4, 0)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), k = getKernel(), s = getStrides(),
                    p = getPadding();
  if (p[0] >= k[0] || p[2] >= k[0] || p[1] >= k[1] || p[3] >= k[1])
    return emitOpError() << "padding " << formatShape(p)
                         << " must be smaller than the kernel "
                         << formatShape(k);
  FailureOr<int64_t> oh =
      windowOutput(*this, "height", in[2], p[0], p[2], k[0], s[0], 1);
  if (failed(oh))
    return failure();
  FailureOr<int64_t> ow =
      windowOutput(*this, "width", in[3], p[1], p[3], k[1], s[1], 1);
  if (failed(ow))
    return failure();
  return checkResultShape(*this, {in[0], in[1], *oh, *ow});
}

LogicalResult ReshapeOp::verify() {
  auto in = cast<ShapedType>(getInput().getType());
  auto out = cast<ShapedType>(getType());
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "cannot reshape " << formatShape(in.getShape())
                         << " (" << in.getNumElements() << " elements) into "
                         << formatShape(out.getShape()) << " ("
                         << out.getNumElements() << " elements)";
  return success();
}

LogicalResult FlattenOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t start = getStartDim();
  if (start < 0 ||
      start >= static_cast<int64_t>(std::max<size_t>(in.size(), 1)))
    return emitOpError() << "start_dim " << start
                         << " is out of range for rank " << in.size();
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
  return checkSameShape(*this, getInput(), "input");
}

LogicalResult CrossEntropyLossOp::verify() {
  if (failed(checkRank(*this, getLogits(), "logits", 2)) ||
      failed(checkRank(*this, getLabels(), "labels", 1)))
    return failure();
  int64_t n = shapeOf(getLogits())[0], labels = shapeOf(getLabels())[0];
  if (n != labels)
    return emitOpError() << "has " << n << " rows of logits but " << labels
                         << " labels";
  return success();
}

LogicalResult MseLossOp::verify() {
  if (shapeOf(getPrediction()) != shapeOf(getTarget()))
    return emitOpError() << "prediction shape "
                         << formatShape(shapeOf(getPrediction()))
                         << " differs from the target shape "
                         << formatShape(shapeOf(getTarget()));
  return success();
}

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
                         << (params.empty() ? " (per tensor)" : " (per index "
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

/// Per-channel weight scales and zero points hold 1 or `channels` values.
template <typename OpTy>
static LogicalResult verifyWeightParams(OpTy op, int64_t channels) {
  for (auto [value, what] :
       {std::pair<Value, StringRef>{op.getWeightScales(), "weight scales"},
        {op.getWeightZeroPoints(), "weight zero points"}}) {
    int64_t n = shapeOf(value)[0];
    if (n != 1 && n != channels)
      return op.emitOpError() << "expects " << what << " of shape [1] or ["
                              << channels << "] (output channels), got ["
                              << n << "]";
  }
  return success();
}

static LogicalResult verifyKChunk(Operation *op, std::optional<uint64_t> chunk) {
  if (chunk && static_cast<int64_t>(*chunk) < 1)
    return op->emitOpError() << "expects k_chunk >= 1, got "
                             << static_cast<int64_t>(*chunk);
  return success();
}

/// The scale and zero point of an int8 activation: rank 0, or one per row
/// of a rank-2 operand.
static LogicalResult verifyRowParams(Operation *op, Value operand, Value scale,
                                     Value zeroPoint, StringRef what) {
  ArrayRef<int64_t> s = shapeOf(scale), z = shapeOf(zeroPoint),
                    x = shapeOf(operand);
  if (s != z)
    return op->emitOpError() << what << " scale " << formatShape(s)
                             << " and zero point " << formatShape(z)
                             << " differ in shape";
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
      failed(verifyRowParams(*this, getLhs(), getLhsScale(),
                             getLhsZeroPoint(), "lhs")))
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
                             {getV(), "v"}, {getResult(), "result"}})
    if (shapeOf(value) != q)
      return emitOpError() << "expects " << what << " of the shape of q "
                           << formatShape(q) << ", got "
                           << formatShape(shapeOf(value));
  int64_t heads = static_cast<int64_t>(getNumHeads());
  if (heads < 1 || q[2] % heads != 0)
    return emitOpError() << "num_heads (" << heads
                         << ") must be >= 1 and divide E (" << q[2] << ")";
  return success();
}
