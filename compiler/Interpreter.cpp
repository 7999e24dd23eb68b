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
// This file runs regions and dispatches every op; the float layers are in
// InterpreterLayers.cpp, the quantized ops in InterpreterQuantized.cpp, and
// InterpreterImpl.h declares what they share.
//
//===----------------------------------------------------------------------===//

#include "compiler/InterpreterImpl.h"
#include "compiler/ModelLoader.h"
#include "dialect/MixOpsVerify.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::interp;

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

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string interp::typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string interp::valueStr(double v) {
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

llvm::Error interp::errorAt(Location loc, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 formatLocation(loc) + ": " + message.str());
}

ArrayRef<int64_t> interp::shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

RefTensor interp::zerosLike(Value v) {
  RefTensor t;
  t.shape.assign(shapeOf(v).begin(), shapeOf(v).end());
  t.data.assign(t.numElements(), 0.0);
  return t;
}

int64_t interp::product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

SmallVector<int64_t> interp::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::optional<int64_t> interp::indexIn(double v, int64_t limit) {
  if (!(v >= 0) || !(v < static_cast<double>(limit)) || std::trunc(v) != v)
    return std::nullopt;
  return static_cast<int64_t>(v);
}

void interp::softmaxInPlace(double *x, int64_t n, int64_t stride) {
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

void interp::matmul(const double *a, const double *b, double *out, int64_t m,
                    int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += a[i * k + p] * b[p * n + j];
      out[i * n + j] = sum;
    }
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

namespace {

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
    if (options.afterOp && op.getNumResults() >= 1)
      options.afterOp(&op, env.find(op.getResult(0))->second);
  }
  std::vector<RefTensor> results;
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(env.lookup(v));
  return results;
}

/// The operands and results of one op being executed in an environment.
struct OpValues {
  Operation *op;
  Env &env;

  const RefTensor &in(Value v) const {
    auto it = env.find(v);
    assert(it != env.end() && "operand not computed yet");
    return it->second;
  }
  /// An optional operand (a bias): null when absent.
  const RefTensor *optional(Value v) const { return v ? &in(v) : nullptr; }
  /// Binds the op's one result, or forwards an error.
  llvm::Error bind(llvm::Expected<RefTensor> value) const {
    if (!value)
      return value.takeError();
    env[op->getResult(0)] = std::move(*value);
    return llvm::Error::success();
  }
};

/// Runs `v.op` when it is a float layer, an elementwise, shape or loss op;
/// any other op is an error (the interpreter does not support it).
llvm::Error executeLayer(const OpValues &v) {
  auto in = [&](Value x) -> const RefTensor & { return v.in(x); };
  auto bind = [&](llvm::Expected<RefTensor> x) { return v.bind(std::move(x)); };
  return llvm::TypeSwitch<Operation *, llvm::Error>(v.op)
      .Case([&](DenseOp d) {
        return bind(evalDense(d, in(d.getInput()), in(d.getWeight()),
                              v.optional(d.getBias())));
      })
      .Case([&](MatmulOp m) {
        return bind(evalMatmul(m, in(m.getLhs()), in(m.getRhs())));
      })
      .Case([&](Conv2DOp c) {
        return bind(evalConv2D(c, in(c.getInput()), in(c.getWeight()),
                               v.optional(c.getBias())));
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
      .Case([&](LogSoftmaxOp s) {
        return bind(evalLogSoftmax(s, in(s.getInput())));
      })
      .Case([&](InstanceNormOp n) {
        return bind(evalInstanceNorm(n, in(n.getInput()), in(n.getScale()),
                                     in(n.getBias())));
      })
      .Case([&](GroupNormOp n) {
        return bind(evalGroupNorm(n, in(n.getInput()), in(n.getScale()),
                                  in(n.getBias())));
      })
      .Case([&](GluOp g) { return bind(evalGlu(g, in(g.getInput()))); })
      .Case([&](GruOp g) {
        std::vector<RefTensor> results =
            evalGru(g, in(g.getInput()), in(g.getW()), in(g.getR()),
                    v.optional(g.getB()), v.optional(g.getInitialH()));
        for (auto [result, value] : llvm::zip_equal(g->getResults(), results))
          v.env[result] = std::move(value);
        return llvm::Error::success();
      })
      .Case([&](LstmOp l) {
        std::vector<RefTensor> results =
            evalLstm(l, in(l.getInput()), in(l.getW()), in(l.getR()),
                     v.optional(l.getB()), v.optional(l.getInitialH()),
                     v.optional(l.getInitialC()));
        for (auto [result, value] : llvm::zip_equal(l->getResults(), results))
          v.env[result] = std::move(value);
        return llvm::Error::success();
      })
      .Case([&](ReluOp r) { return bind(evalRelu(in(r.getInput()))); })
      .Case([&](GeluOp g) { return bind(evalGelu(g, in(g.getInput()))); })
      .Case([&](AddOp a) {
        return bind(evalAdd(a, in(a.getLhs()), in(a.getRhs())));
      })
      .Case([&](MulOp m) {
        return bind(evalMul(m, in(m.getLhs()), in(m.getRhs())));
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
      .Case([&](AvgPool2DOp a) {
        return bind(evalAvgPool2D(a, in(a.getInput())));
      })
      .Case([&](ConvTranspose2DOp c) {
        return bind(evalConvTranspose2D(c, in(c.getInput()), in(c.getWeight()),
                                        v.optional(c.getBias())));
      })
      .Case([&](ResizeOp r) { return bind(evalResize(r, in(r.getInput()))); })
      .Case([&](GatherOp g) {
        return bind(
            evalGather(g, in(g.getInput()), v.optional(g.getRuntimeIndices())));
      })
      .Case([&](ExpandOp e) { return bind(evalExpand(e, in(e.getInput()))); })
      .Case<ArgMaxOp, ArgMinOp>([&](Operation *a) {
        return bind(evalArgExtremum(a, in(a->getOperand(0))));
      })
      .Case([&](CompareOp c) {
        return bind(evalCompare(c, in(c.getLhs()), in(c.getRhs())));
      })
      .Case([&](LogicalOp l) {
        SmallVector<const RefTensor *> masks;
        for (Value m : l.getMasks())
          masks.push_back(&in(m));
        return bind(evalLogical(l, masks));
      })
      .Case([&](WhereOp w) {
        return bind(
            evalWhere(w, in(w.getCondition()), in(w.getX()), in(w.getY())));
      })
      .Case([&](TransposeOp t) {
        return bind(evalTranspose(t, in(t.getInput())));
      })
      .Case([&](ConcatOp c) {
        SmallVector<const RefTensor *> inputs;
        for (Value x : c.getInputs())
          inputs.push_back(&in(x));
        return bind(evalConcat(c, inputs));
      })
      .Case([&](SliceOp s) { return bind(evalSlice(s, in(s.getInput()))); })
      .Case([&](PadOp p) { return bind(evalPad(p, in(p.getInput()))); })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceL2Op, ReduceProdOp, ReduceMaxOp,
            ReduceMinOp>([&](Operation *r) {
        Value x = r->getOperand(0);
        ArrayRef<int64_t> listed =
            llvm::TypeSwitch<Operation *, ArrayRef<int64_t>>(r)
                .Case<ReduceSumOp, ReduceMeanOp, ReduceL2Op, ReduceProdOp,
                      ReduceMaxOp, ReduceMinOp>(
                    [](auto o) { return o.getAxes(); });
        auto axes = checks::reducedAxes(r, listed, int64_t(in(x).shape.size()));
        return bind(evalReduce(r, *axes, in(x)));
      })
      .Case<ReshapeOp, FlattenOp>([&](Operation *r) {
        return bind(evalReshape(r, in(r->getOperand(0))));
      })
      .Case([&](AttentionOp a) {
        AttentionOperands w{&in(a.getWq()),         &in(a.getWk()),
                            &in(a.getWv()),         &in(a.getWo()),
                            v.optional(a.getBq()),  v.optional(a.getBk()),
                            v.optional(a.getBv()),  v.optional(a.getBo()),
                            v.optional(a.getMask())};
        return bind(evalAttention(a, in(a.getInput()), w));
      })
      .Case([&](CrossEntropyLossOp c) {
        return bind(evalCrossEntropy(c, in(c.getLogits()), in(c.getLabels())));
      })
      .Case([&](MseLossOp m) {
        return bind(evalMseLoss(in(m.getPrediction()), in(m.getTarget())));
      })
      .Default([&](Operation *other) {
        if (other->getNumOperands() == 1)
          if (auto y = evalUnaryMath(other, in(other->getOperand(0))))
            return bind(std::move(*y));
        if (other->getNumOperands() == 2)
          if (auto y = evalBinaryMath(other, in(other->getOperand(0)),
                                      in(other->getOperand(1))))
            return bind(std::move(*y));
        return errorAt(other->getLoc(), "the interpreter does not support '" +
                                            other->getName().getStringRef() +
                                            "'");
      });
}

llvm::Error Interpreter::execute(Operation *op, Env &env) {
  OpValues v{op, env};
  auto in = [&](Value x) -> const RefTensor & { return v.in(x); };
  auto bind = [&](llvm::Expected<RefTensor> x) { return v.bind(std::move(x)); };
  return llvm::TypeSwitch<Operation *, llvm::Error>(op)
      .Case([&](BlockOp block) -> llvm::Error {
        SmallVector<RefTensor> args;
        for (Value x : block.getInputs())
          args.push_back(in(x));
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
      // The ops of mix-quantize.
      .Case(
          [&](QuantizeOp q) { return evalQuantize(q, in(q.getInput()), env); })
      .Case([&](DequantizeOp d) {
        return bind(evalDequantize(d, in(d.getInput()), in(d.getScales()),
                                   in(d.getZeroPoints())));
      })
      .Case([&](AttentionCoreOp a) {
        return bind(evalAttentionCore(a, in(a.getQ()), in(a.getK()),
                                      in(a.getV()), v.optional(a.getMask())));
      })
      .Case([&](QDenseOp d) {
        return bind(checkRescaled(
            d, evalQDense(d, in(d.getInput()), in(d.getInputScale()),
                          in(d.getInputZeroPoint()), in(d.getWeight()),
                          in(d.getWeightScales()), in(d.getWeightZeroPoints()),
                          v.optional(d.getBias()))));
      })
      .Case([&](QMatmulOp m) {
        return bind(checkRescaled(
            m, evalQMatmul(m, in(m.getLhs()), in(m.getLhsScale()),
                           in(m.getLhsZeroPoint()), in(m.getRhs()),
                           in(m.getRhsScale()), in(m.getRhsZeroPoint()))));
      })
      .Case([&](QConv2DOp c) {
        return bind(checkRescaled(
            c, evalQConv2D(c, in(c.getInput()), in(c.getInputScale()),
                           in(c.getInputZeroPoint()), in(c.getWeight()),
                           in(c.getWeightScales()), in(c.getWeightZeroPoints()),
                           v.optional(c.getBias()))));
      })
      .Default([&](Operation *) { return executeLayer(v); });
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
    // An i1 is 0 or 1 (true is 1), as mix.cast reads it.
    bool isUnsigned = ints.getElementType().isUnsignedInteger() ||
                      ints.getElementType().isInteger(1);
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
  // Integers are held as exact doubles (signed; an i1 as 0 or 1): an
  // unsigned i8 reads its negative values + 256. Rounding the exact double
  // to `to` is mix.cast's one RNE rounding of the integer.
  if (op.getIsUnsigned())
    for (double &v : y.data)
      if (v < 0)
        v += 256.0;
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
    // i1 is a mask: 0 or 1, like a constant mask's value (see above).
    unsigned width = intType.getWidth();
    bool isUnsigned = intType.isUnsigned() || width == 1;
    double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
    double hi =
        isUnsigned ? std::ldexp(1.0, width) : std::ldexp(1.0, width - 1);
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
