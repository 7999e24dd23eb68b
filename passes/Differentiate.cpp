//===- Differentiate.cpp - reverse-mode differentiation of a network ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mix-differentiate: for a network whose last result is a loss, builds
// `@<name>_grad`, a network that computes the loss and the gradient of the
// loss (times a `loss_scale` input) with respect to every floating-point
// weight the loss depends on.
//
// How the gradient network is built:
//
// 1. The forward network is cloned flat: every op of every block is copied
//    to the top level, in order (block arguments and results become the
//    values they are bound to).
// 2. Activity analysis: a value is active when it depends on a weight and
//    the loss depends on it. Only ops with an active result need a gradient
//    rule; an active op without one is an error naming it.
// 3. The backward sweep walks the cloned ops in reverse, with the adjoint of
//    the loss seeded by `loss_scale`, and emits each op's rule as ordinary
//    mix ops (matmul, transpose, reduce_sum, where, ...). Contributions to a
//    value used more than once are summed with mix.add.
// 4. Scopes: the ops of each forward layer, and the backward ops of each
//    forward layer, are wrapped back into a chain of blocks with the names
//    and precisions of the blocks that enclosed the forward layer. The
//    backward of a layer therefore inherits exactly what its forward
//    inherits, and `mix-lint --explain` of the gradient network names the
//    same blocks as sources. The forward layer's own `precision` is copied
//    to its backward ops; per-property overrides are not (they name the
//    forward layer's operands).
//
// Precision rules of the backward (docs/precision.md, "Gradients"):
// - the backward of a layer runs at the layer's precision, as above;
// - the backward of a layer that resolves to int8 runs at f32 (int8 is a
//   quantization of the forward; its gradient is taken with respect to the
//   float weights, straight through the quantization);
// - everything that computes a weight gradient (the weight GEMM, bias and
//   broadcast sums, and the sums of several contributions) runs at f32, or
//   f64 when the weight is f64: weight gradients accumulate in at least f32.
//
//===----------------------------------------------------------------------===//

#include "passes/Differentiate.h"
#include "dialect/MixAttrNames.h"
#include "dialect/MixOps.h"
#include "dialect/ResizeTap.h"
#include "passes/Passes.h"
#include "passes/PrecisionAnalysis.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace mix {
#define GEN_PASS_DEF_MIXDIFFERENTIATEPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {

/// The blocks enclosing a forward op, outermost first.
using ScopeChain = SmallVector<BlockOp, 4>;

/// Ops of the gradient network that go into one chain of scope blocks.
struct Group {
  SmallVector<Operation *> ops;
  ScopeChain scopes;
};

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

int64_t numElements(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// Builds the gradient network of one forward network.
class Differentiator {
public:
  Differentiator(NetworkOp forward, bool weightsAsInputs)
      : forward(forward), ctx(forward.getContext()), b(ctx),
        loc(forward.getLoc()), weightsAsInputs(weightsAsInputs) {}

  /// Builds `@<name>_grad` after the forward network; on failure nothing is
  /// left in the module.
  FailureOr<NetworkOp> run();

private:
  // Step 1.
  void cloneFlat(Block &body, ScopeChain &scopes, IRMapping &map,
                 SmallVectorImpl<Value> &terminatorValues);
  void cloneBatchNormForTraining(BatchNormOp bn, ScopeChain &scopes,
                                 IRMapping &map);
  void cloneAttentionDecomposed(AttentionOp attention, ScopeChain &scopes,
                                IRMapping &map);
  void cloneRecurrentDecomposed(Operation *op, ScopeChain &scopes,
                                IRMapping &map);
  void cloneNormDecomposed(Operation *op, ScopeChain &scopes, IRMapping &map);
  /// The resolved accumulator precision of `layer` where it is a float
  /// precision, else f32 (an int8 layer's i32 accumulator).
  PrecisionAttr floatAccumulator(Operation *layer);
  /// Records the ops emitted after `start` as forward ops of `original`.
  void recordForward(Block::iterator start, bool wasEmpty, ScopeChain &scopes,
                     Operation *original);
  // Step 2.
  void analyzeActivity(Value loss);
  /// Copies `run` (the forward ops of one `recompute` block, in order) to
  /// the end of the body, with the activity, adjoints and scopes of the
  /// originals; returns the copies.
  SmallVector<Operation *> recompute(ArrayRef<Operation *> run);
  // Step 3.
  LogicalResult differentiate(Operation *op);
  FailureOr<Value> operandAdjoint(Operation *op, unsigned index, Value g);
  FailureOr<Value> conv2dAdjoint(Conv2DOp conv, unsigned index, Value g);
  FailureOr<Value> avgPoolAdjoint(AvgPool2DOp pool, Value g);
  Value maxPoolAdjoint(MaxPool2DOp pool, Value g);
  FailureOr<Value> convTransposeAdjoint(ConvTranspose2DOp conv, unsigned index,
                                        Value g);
  /// The weight gradient of a conv2d with input `x`, output adjoint `g` and
  /// weights of shape `ws`.
  Value convWeightGradient(Value x, Value g, ArrayRef<int64_t> ws,
                           ArrayRef<int64_t> strides, ArrayRef<int64_t> dil,
                           ArrayRef<int64_t> pad, int64_t groups);
  /// Each line of `v` along `axis` (size `in`) multiplied by the constant
  /// `in` x `out` matrix `m` (row-major): a dense of the constant with the
  /// axis moved last. The adjoint of a selection or interpolation along one
  /// axis (strided slice, gather, reflect/edge pad, resize) is one.
  Value alongAxis(Value v, int64_t axis, int64_t out, ArrayRef<float> m);
  void accumulate(Value v, Value contribution);
  // Step 4.
  void wrap(const Group &group);
  BlockOp wrapOne(ArrayRef<Operation *> ops, BlockOp proto);

  // Builders of the ops the rules are written in, at the end of the body.
  RankedTensorType tensorType(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, elementType);
  }
  template <typename OpTy>
  Value make(Type type, ValueRange operands,
             ArrayRef<NamedAttribute> attrs = {}) {
    Operation *op = OpTy::create(b, loc, TypeRange{type}, operands, attrs);
    if (stamp && isa<LayerOpInterface>(op))
      op->setAttr("precision", stamp);
    return op->getResult(0);
  }
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    SmallVector<int64_t> shape = broadcastShape(shapeOf(lhs), shapeOf(rhs));
    return make<OpTy>(tensorType(shape), {lhs, rhs});
  }
  template <typename OpTy> Value unary(Value x) {
    return make<OpTy>(x.getType(), {x});
  }
  Value constant(double value);
  /// An inline f32 weight of `shape` holding `values` (row-major; one value
  /// is splat).
  Value constantTensor(ArrayRef<int64_t> shape, ArrayRef<float> values);
  Value reshape(Value v, ArrayRef<int64_t> shape);
  /// `v[begin:end]` along `axis`.
  Value slice(Value v, int64_t axis, int64_t begin, int64_t end);
  /// `values` joined along `axis` (one value: itself).
  Value concat(ArrayRef<Value> values, int64_t axis);
  Value transpose(Value v, ArrayRef<int64_t> permutation);
  Value reduceSum(Value v, ArrayRef<int64_t> axes, bool keepdims);
  Value matmul(Value lhs, Value rhs);
  Value compareWithZero(Value x, StringRef predicate) {
    return compare(x, constant(0.0), predicate);
  }
  Value compare(Value lhs, Value rhs, StringRef predicate);
  Value where(Value condition, Value x, Value y);
  /// `[N, classes]`: row i is 1 at column ids[i] and 0 elsewhere (all 0
  /// when ids[i] is outside [0, classes)), N the number of `ids`; built by
  /// comparing the indices, converted to floats (exact below 2^24), with an
  /// iota of `classes` values.
  Value oneHot(Value ids, int64_t classes);
  /// Sums `g` down to `shape` (the reverse of numpy broadcasting).
  Value unbroadcast(Value g, ArrayRef<int64_t> shape);
  static SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> a,
                                             ArrayRef<int64_t> b);

  NetworkOp forward;
  MLIRContext *ctx;
  OpBuilder b;
  Location loc;
  bool weightsAsInputs;
  Type elementType;
  NetworkOp grad;
  std::string initialName;
  Block *body = nullptr;

  /// The forward ops cloned flat, in order, with their scopes and the layer
  /// resolution of the original.
  SmallVector<Operation *> forwardOps;
  DenseMap<Operation *, ScopeChain> scopesOf;
  DenseMap<Operation *, LayerOpInterface> originalOf;
  /// The trainable weights: clones of float mix.weight ops, in order.
  SmallVector<WeightOp> weights;
  DenseMap<Operation *, WeightOp> originalWeight;
  /// The precision the layers read each weight at (f16 or bf16; f32 when
  /// they disagree or read it at f32, f64 or int8).
  DenseMap<Operation *, PrecisionAttr> workingPrecision;

  DenseSet<Value> active;
  /// Why a rule refused its op (shown with the error), or empty.
  std::string refusal;
  /// Values that are a weight rearranged (slice, reshape, transpose): their
  /// gradients are weight gradients, accumulated at f32 or wider.
  DenseSet<Value> weightDerived;
  /// The forward ops copied for `recompute` blocks.
  SmallVector<Operation *> recomputed;
  DenseMap<Value, Value> adjoints;
  PrecisionAnalysis *resolution = nullptr;
  /// The precision the ops being emitted get (null: inherit).
  PrecisionAttr stamp;
  SmallVector<Group> groups;
  /// The batch statistics of each batch_norm, in order.
  struct BatchStatistics {
    Value mean, variance;
    BatchNormOp layer;
  };
  SmallVector<BatchStatistics> batchStatistics;
  /// A batch_norm with a single value per channel (no batch statistics).
  BatchNormOp tooFewSamples;

public:
  void setResolution(PrecisionAnalysis *analysis) { resolution = analysis; }
};

SmallVector<int64_t> Differentiator::broadcastShape(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Value Differentiator::constant(double value) {
  return constantTensor({}, {static_cast<float>(value)});
}

Value Differentiator::constantTensor(ArrayRef<int64_t> shape,
                                     ArrayRef<float> values) {
  auto type = tensorType(shape);
  auto attr = values.size() == 1 ? DenseElementsAttr::get(type, values[0])
                                 : DenseElementsAttr::get(type, values);
  return WeightOp::create(b, loc, TypeRange{type}, ValueRange{},
                          {b.getNamedAttr("value", attr)})
      ->getResult(0);
}

Value Differentiator::reshape(Value v, ArrayRef<int64_t> shape) {
  if (shapeOf(v) == shape)
    return v;
  return make<ReshapeOp>(tensorType(shape), {v});
}

Value Differentiator::slice(Value v, int64_t axis, int64_t begin, int64_t end) {
  SmallVector<int64_t> shape(shapeOf(v));
  if (begin == 0 && end == shape[axis])
    return v;
  shape[axis] = end - begin;
  return make<SliceOp>(
      tensorType(shape), {v},
      {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({axis})),
       b.getNamedAttr("starts", b.getDenseI64ArrayAttr({begin})),
       b.getNamedAttr("ends", b.getDenseI64ArrayAttr({end})),
       b.getNamedAttr("steps", b.getDenseI64ArrayAttr({1}))});
}

Value Differentiator::concat(ArrayRef<Value> values, int64_t axis) {
  if (values.size() == 1)
    return values.front();
  SmallVector<int64_t> shape(shapeOf(values.front()));
  shape[axis] = 0;
  for (Value v : values)
    shape[axis] += shapeOf(v)[axis];
  return make<ConcatOp>(tensorType(shape), values,
                        {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
}

Value Differentiator::transpose(Value v, ArrayRef<int64_t> permutation) {
  ArrayRef<int64_t> in = shapeOf(v);
  SmallVector<int64_t> out;
  for (int64_t p : permutation)
    out.push_back(in[p]);
  return make<TransposeOp>(
      tensorType(out), {v},
      {b.getNamedAttr("permutation", b.getDenseI64ArrayAttr(permutation))});
}

Value Differentiator::reduceSum(Value v, ArrayRef<int64_t> axes,
                                bool keepdims) {
  if (axes.empty())
    return v;
  ArrayRef<int64_t> in = shapeOf(v);
  SmallVector<int64_t> out;
  for (auto [i, d] : llvm::enumerate(in)) {
    bool reduced = llvm::is_contained(axes, int64_t(i));
    if (!reduced)
      out.push_back(d);
    else if (keepdims)
      out.push_back(1);
  }
  return make<ReduceSumOp>(
      tensorType(out), {v},
      {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
       b.getNamedAttr("keepdims", b.getBoolAttr(keepdims))});
}

Value Differentiator::matmul(Value lhs, Value rhs) {
  SmallVector<int64_t> out(shapeOf(lhs));
  out.back() = shapeOf(rhs).back();
  return make<MatmulOp>(tensorType(out), {lhs, rhs});
}

Value Differentiator::compare(Value lhs, Value rhs, StringRef predicate) {
  auto maskType = RankedTensorType::get(
      broadcastShape(shapeOf(lhs), shapeOf(rhs)), b.getI1Type());
  return make<CompareOp>(
      maskType, {lhs, rhs},
      {b.getNamedAttr("predicate", b.getStringAttr(predicate))});
}

Value Differentiator::where(Value condition, Value x, Value y) {
  SmallVector<int64_t> shape = broadcastShape(
      shapeOf(condition), broadcastShape(shapeOf(x), shapeOf(y)));
  return make<WhereOp>(tensorType(shape), {condition, x, y});
}

Value Differentiator::oneHot(Value ids, int64_t classes) {
  ArrayRef<int64_t> idsShape = shapeOf(ids);
  Value idsF =
      CastOp::create(b, loc, RankedTensorType::get(idsShape, elementType), ids,
                     /*is_unsigned=*/false, /*checked=*/false);
  // Clamped into [0, classes - 1] as the compiled forward pass clamps them
  // (embedding, cross_entropy_loss): the gradient goes where the value
  // came from. Exact: integers below 2^24 in f32.
  idsF = make<ClipOp>(
      idsF.getType(), {idsF},
      {b.getNamedAttr("min", b.getF64FloatAttr(0.0)),
       b.getNamedAttr("max", b.getF64FloatAttr(double(classes - 1)))});
  SmallVector<float> iota(classes);
  for (int64_t i = 0; i < classes; ++i)
    iota[i] = float(i);
  Value columns = constantTensor({classes}, iota);
  // One op per statement: the IR's order does not depend on the order in
  // which a compiler evaluates arguments.
  Value hit = compare(reshape(idsF, {numElements(idsShape), 1}), columns, "eq");
  Value one = constant(1.0);
  Value zero = constant(0.0);
  return where(hit, one, zero);
}

Value Differentiator::unbroadcast(Value g, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> in = shapeOf(g);
  if (in == shape)
    return g;
  size_t lead = in.size() - shape.size();
  SmallVector<int64_t> axes;
  for (size_t i = 0; i < lead; ++i)
    axes.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && in[lead + i] != 1)
      axes.push_back(lead + i);
  return reshape(reduceSum(g, axes, /*keepdims=*/true), shape);
}

void Differentiator::cloneFlat(Block &source, ScopeChain &scopes,
                               IRMapping &map,
                               SmallVectorImpl<Value> &terminatorValues) {
  for (Operation &op : source) {
    if (auto block = dyn_cast<BlockOp>(op)) {
      Block &inner = block.getBody().front();
      for (auto [arg, input] :
           llvm::zip_equal(inner.getArguments(), block.getInputs()))
        map.map(arg, map.lookup(input));
      scopes.push_back(block);
      SmallVector<Value> yielded;
      cloneFlat(inner, scopes, map, yielded);
      scopes.pop_back();
      for (auto [result, value] : llvm::zip_equal(block.getResults(), yielded))
        map.map(result, value);
      continue;
    }
    if (isa<YieldOp, ReturnOp>(op)) {
      for (Value v : op.getOperands())
        terminatorValues.push_back(map.lookup(v));
      continue;
    }
    if (auto bn = dyn_cast<BatchNormOp>(op)) {
      cloneBatchNormForTraining(bn, scopes, map);
      continue;
    }
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      cloneAttentionDecomposed(attention, scopes, map);
      continue;
    }
    if (isa<LstmOp, GruOp>(op)) {
      cloneRecurrentDecomposed(&op, scopes, map);
      continue;
    }
    if (isa<InstanceNormOp, GroupNormOp>(op)) {
      cloneNormDecomposed(&op, scopes, map);
      continue;
    }
    Operation *clone = b.clone(op, map);
    clone->removeAttr("resolved");
    forwardOps.push_back(clone);
    scopesOf[clone] = scopes;
    if (auto layer = dyn_cast<LayerOpInterface>(op))
      originalOf[clone] = layer;
    if (auto weight = dyn_cast<WeightOp>(clone))
      if (isa<FloatType>(getElementTypeOrSelf(weight.getType()))) {
        weights.push_back(weight);
        originalWeight[clone] = cast<WeightOp>(op);
      }
  }
}

/// In the gradient network a batch_norm normalizes with the statistics of
/// the batch, as in training (biased variance), written in mix ops so that
/// their rules differentiate it:
///   mean = sum(x) / M, c = x - mean, var = sum(c * c) / M,
///   y = c * rsqrt(var + epsilon) * scale + bias
/// over every dimension but the channels (M values per channel). The batch
/// mean and the unbiased batch variance (var * M / (M - 1), what running
/// averages use) become outputs of the gradient network.
void Differentiator::cloneBatchNormForTraining(BatchNormOp bn,
                                               ScopeChain &scopes,
                                               IRMapping &map) {
  Block::iterator start = body->empty() ? body->end() : std::prev(body->end());
  bool wasEmpty = body->empty();
  PrecisionAttr saved = stamp;
  stamp = bn.getPrecisionAttr();
  loc = bn.getLoc();
  Value x = map.lookup(bn.getInput());
  ArrayRef<int64_t> xs = shapeOf(x);
  int64_t rank = xs.size(), channels = xs[1];
  SmallVector<int64_t> axes, kept(rank, 1);
  kept[1] = channels;
  int64_t m = 1;
  for (int64_t i = 0; i < rank; ++i)
    if (i != 1) {
      axes.push_back(i);
      m *= xs[i];
    }
  Value mean = binary<DivOp>(reduceSum(x, axes, true), constant(double(m)));
  Value centered = binary<SubOp>(x, mean);
  Value var =
      binary<DivOp>(reduceSum(binary<MulOp>(centered, centered), axes, true),
                    constant(double(m)));
  Value rstd = unary<RsqrtOp>(
      binary<AddOp>(var, constant(bn.getEpsilon().convertToDouble())));
  Value scale = reshape(map.lookup(bn.getScale()), kept);
  Value bias = reshape(map.lookup(bn.getBias()), kept);
  Value y =
      binary<AddOp>(binary<MulOp>(binary<MulOp>(centered, rstd), scale), bias);
  map.map(bn.getResult(), y);
  BatchStatistics stats;
  stats.mean = reshape(mean, {channels});
  if (m < 2 && !tooFewSamples)
    tooFewSamples = bn;
  stats.variance =
      reshape(binary<DivOp>(binary<MulOp>(var, constant(double(m))),
                            constant(double(std::max<int64_t>(m - 1, 1)))),
              {channels});
  stats.layer = bn;
  batchStatistics.push_back(stats);
  stamp = saved;
  recordForward(start, wasEmpty, scopes, bn);
}

/// instance_norm and group_norm, written in mix ops like batch_norm (they
/// normalize with the statistics of each sample in training and inference
/// alike): x `[N, C, ...]` viewed as `[N, G, M]` (G = C for instance_norm,
/// M the values of one sample's group), then
///   mean = sum(x) / M, c = x - mean, var = sum(c * c) / M,
///   y = c * rsqrt(var + epsilon) viewed as x, * scale + bias per channel.
void Differentiator::cloneNormDecomposed(Operation *op, ScopeChain &scopes,
                                         IRMapping &map) {
  Block::iterator start = body->empty() ? body->end() : std::prev(body->end());
  bool wasEmpty = body->empty();
  PrecisionAttr saved = stamp;
  stamp = cast<LayerOpInterface>(op).getLayerPrecision();
  loc = op->getLoc();
  Value x = map.lookup(op->getOperand(0));
  ArrayRef<int64_t> xs = shapeOf(x);
  int64_t n = xs[0], channels = xs[1];
  int64_t groups = channels;
  double epsilon;
  if (auto in = dyn_cast<InstanceNormOp>(op)) {
    epsilon = in.getEpsilon().convertToDouble();
  } else {
    auto gn = cast<GroupNormOp>(op);
    groups = static_cast<int64_t>(gn.getNumGroups());
    epsilon = gn.getEpsilon().convertToDouble();
  }
  int64_t m = numElements(xs) / (n * groups);
  Value v = reshape(x, {n, groups, m});
  Value sum = reduceSum(v, {2}, /*keepdims=*/true);
  Value mean = binary<DivOp>(sum, constant(double(m)));
  Value centered = binary<SubOp>(v, mean);
  Value squares =
      reduceSum(binary<MulOp>(centered, centered), {2}, /*keepdims=*/true);
  Value var = binary<DivOp>(squares, constant(double(m)));
  Value normalized = reshape(
      binary<MulOp>(centered,
                    unary<RsqrtOp>(binary<AddOp>(var, constant(epsilon)))),
      xs);
  SmallVector<int64_t> kept(xs.size(), 1);
  kept[1] = channels;
  Value scale = reshape(map.lookup(op->getOperand(1)), kept);
  Value scaled = binary<MulOp>(normalized, scale);
  Value bias = reshape(map.lookup(op->getOperand(2)), kept);
  Value y = binary<AddOp>(scaled, bias);
  map.map(op->getResult(0), y);
  stamp = saved;
  recordForward(start, wasEmpty, scopes, op);
}

void Differentiator::recordForward(Block::iterator start, bool wasEmpty,
                                   ScopeChain &scopes, Operation *original) {
  for (Operation &op : llvm::make_range(
           wasEmpty ? body->begin() : std::next(start), body->end())) {
    forwardOps.push_back(&op);
    scopesOf[&op] = scopes;
    if (isa<LayerOpInterface>(op))
      originalOf[&op] = cast<LayerOpInterface>(original);
  }
}

/// In the gradient network an attention layer is written as the ops it
/// computes, so that their rules differentiate it: the q/k/v projections
/// (dense, with their biases), the heads split (reshape, transpose), the
/// scores Q K^T / sqrt(D) (matmul, div), the mask added (a [B, S, S] mask
/// reshaped to [B, 1, S, S]), the future masked to -inf when causal
/// (where), the softmax over the keys, the weighted values, the heads
/// merged and the output projection. The projections carry the layer's
/// precision; the rest its accumulator precision (f32 for an int8 layer,
/// whose backward runs straight through at f32).
void Differentiator::cloneAttentionDecomposed(AttentionOp attention,
                                              ScopeChain &scopes,
                                              IRMapping &map) {
  Block::iterator start = body->empty() ? body->end() : std::prev(body->end());
  bool wasEmpty = body->empty();
  PrecisionAttr saved = stamp;
  // The projections at the layer's own precision (or what it inherits);
  // the scores, softmax and weighted values at its resolved accumulator
  // precision, as the layer computes them (f32 for an int8 layer).
  PrecisionAttr layer = attention.getPrecisionAttr();
  PrecisionAttr core = floatAccumulator(attention);
  loc = attention.getLoc();
  Value x = map.lookup(attention.getInput());
  ArrayRef<int64_t> xs = shapeOf(x);
  int64_t batch = xs[0], seq = xs[1], e = xs[2];
  int64_t heads = attention.getNumHeads(), d = e / heads;
  auto project = [&](Value in, Value w, Value bias) {
    SmallVector<Value> operands{in, map.lookup(w)};
    if (bias)
      operands.push_back(map.lookup(bias));
    stamp = layer;
    Value y = make<DenseOp>(tensorType({batch, seq, e}), operands);
    stamp = core;
    return y;
  };
  auto split = [&](Value v) {
    return transpose(reshape(v, {batch, seq, heads, d}), {0, 2, 1, 3});
  };
  Value q = split(project(x, attention.getWq(), attention.getBq()));
  Value k = split(project(x, attention.getWk(), attention.getBk()));
  Value v = split(project(x, attention.getWv(), attention.getBv()));
  Value scores = binary<DivOp>(matmul(q, transpose(k, {0, 1, 3, 2})),
                               constant(std::sqrt(double(d))));
  if (Value mask = attention.getMask()) {
    Value m = map.lookup(mask);
    if (shapeOf(m).size() == 3)
      m = reshape(m, {shapeOf(m)[0], 1, shapeOf(m)[1], shapeOf(m)[2]});
    scores = binary<AddOp>(scores, m);
  }
  if (attention.getCausal()) {
    SmallVector<float> positions(seq);
    for (int64_t i = 0; i < seq; ++i)
      positions[i] = float(i);
    Value visible = compare(constantTensor({seq, 1}, positions),
                            constantTensor({1, seq}, positions), "ge");
    scores = where(visible, scores,
                   constant(-std::numeric_limits<double>::infinity()));
  }
  Value probs =
      make<SoftmaxOp>(scores.getType(), {scores},
                      {b.getNamedAttr("axis", b.getI64IntegerAttr(3))});
  Value merged =
      reshape(transpose(matmul(probs, v), {0, 2, 1, 3}), {batch, seq, e});
  Value y = project(merged, attention.getWo(), attention.getBo());
  map.map(attention.getResult(), y);
  stamp = saved;
  recordForward(start, wasEmpty, scopes, attention);
}

PrecisionAttr Differentiator::floatAccumulator(Operation *layer) {
  FailureOr<LayerResolution> resolved =
      resolution->resolve(cast<LayerOpInterface>(layer));
  if (succeeded(resolved) && !resolved->accumulator.precision.isInt8() &&
      resolved->accumulator.precision.getKind() != PrecisionKind::i32)
    return resolved->accumulator.precision;
  return PrecisionAttr::get(ctx, PrecisionKind::f32);
}

/// In the gradient network an lstm or gru layer is unrolled into the ops
/// it computes, so that their rules differentiate it (back-propagation
/// through time). Per direction d:
/// - the weights of d: `W_d^T` `[I, G*H]`, `R_d^T` `[H, G*H]` (slice,
///   reshape, transpose of `w` and `r`; G = 4 for lstm, 3 for gru), and the
///   input and recurrent biases `Wb_d`, `Rb_d`;
/// - the input GEMM of every step at once: `X W_d^T + Wb_d` (one dense);
/// - per step t (descending for the reverse direction): the recurrent GEMM
///   `h R_d^T + Rb_d` (dense), the gates (slices, sigmoid, tanh) and the
///   new state, as the layer's formulas write them (mix.lstm, mix.gru);
///   a missing initial state is a constant 0;
/// - `y` joins the states of every step and direction, `y_h` (and `y_c`)
///   the last ones (concat), in the layer's layout.
/// Precisions as the layer computes them: the weights and the GEMMs at the
/// layer's own precision (or what it inherits), the gates at its resolved
/// accumulator precision (f32 for an int8 layer), the carried state (c and
/// h) at its state precision. The graph grows with the sequence: about 15
/// ops per step and direction.
void Differentiator::cloneRecurrentDecomposed(Operation *op, ScopeChain &scopes,
                                              IRMapping &map) {
  Block::iterator start = body->empty() ? body->end() : std::prev(body->end());
  bool wasEmpty = body->empty();
  PrecisionAttr saved = stamp;
  auto lstm = dyn_cast<LstmOp>(op);
  auto gru = dyn_cast<GruOp>(op);
  PrecisionAttr layer = cast<LayerOpInterface>(op).getLayerPrecision();
  PrecisionAttr core = floatAccumulator(op);
  PrecisionAttr state = lstm ? lstm.getStatePrecisionOrDefault()
                             : gru.getStatePrecisionOrDefault();
  loc = op->getLoc();
  auto lookup = [&](Value v) { return v ? map.lookup(v) : Value(); };
  Value x = map.lookup(op->getOperand(0));
  Value w = lookup(lstm ? lstm.getW() : gru.getW());
  Value r = lookup(lstm ? lstm.getR() : gru.getR());
  Value bias = lookup(lstm ? lstm.getB() : gru.getB());
  Value initialH = lookup(lstm ? lstm.getInitialH() : gru.getInitialH());
  Value initialC = lstm ? lookup(lstm.getInitialC()) : Value();
  bool batchFirst = (lstm ? lstm.getLayout() : gru.getLayout()) == 1;
  bool reverse = (lstm ? lstm.getDirection() : gru.getDirection()) == "reverse";
  int64_t dirs = lstm ? lstm.getNumDirections() : gru.getNumDirections();
  int64_t hidden = lstm ? lstm.getHiddenSize() : gru.getHiddenSize();
  int64_t numGates = lstm ? 4 : 3, gh = numGates * hidden;
  ArrayRef<int64_t> xs = shapeOf(x);
  int64_t steps = batchFirst ? xs[1] : xs[0];
  int64_t batch = batchFirst ? xs[0] : xs[1];
  int64_t in = xs[2];
  int64_t timeAxis = batchFirst ? 1 : 0, stateDirAxis = batchFirst ? 1 : 0;
  bool linearBeforeReset = gru && gru.getLinearBeforeReset() != 0;

  // The weights of direction d, transposed for mix.dense: [K, G*H].
  auto weightOf = [&](Value v, int64_t d, int64_t k) {
    return transpose(reshape(slice(v, 0, d, d + 1), {gh, k}), {1, 0});
  };
  auto biasOf = [&](int64_t d, int64_t part) -> Value {
    if (!bias)
      return Value();
    return reshape(
        slice(slice(bias, 0, d, d + 1), 1, part * gh, (part + 1) * gh), {gh});
  };
  auto dense = [&](Value input, Value weight, Value b,
                   ArrayRef<int64_t> shape) {
    SmallVector<Value> operands{input, weight};
    if (b)
      operands.push_back(b);
    return make<DenseOp>(tensorType(shape), operands);
  };
  auto initial = [&](Value v, int64_t d) {
    if (!v)
      return constantTensor({batch, hidden}, {0.0f});
    return reshape(slice(v, stateDirAxis, d, d + 1), {batch, hidden});
  };
  auto gate = [&](Value v, int64_t k) {
    return slice(v, 1, k * hidden, (k + 1) * hidden);
  };
  // sigmoid(gate k of a + gate k of b). Here and below one op per
  // statement: the IR's order does not depend on the order in which a
  // compiler evaluates arguments.
  auto sigmoidOfSum = [&](Value a, Value b, int64_t k) {
    Value ga = gate(a, k);
    Value gb = gate(b, k);
    return unary<SigmoidOp>(binary<AddOp>(ga, gb));
  };

  // hs[d][t]: the state h after the step at time t; last[d]: the final h
  // (and c).
  SmallVector<SmallVector<Value>> hs(dirs, SmallVector<Value>(steps));
  SmallVector<Value> lastH(dirs), lastC(dirs);
  for (int64_t d = 0; d < dirs; ++d) {
    bool backward = reverse || d == 1;
    stamp = layer;
    Value wd = weightOf(w, d, in), rd = weightOf(r, d, hidden);
    Value gx = dense(x, wd, biasOf(d, 0),
                     batchFirst ? SmallVector<int64_t>{batch, steps, gh}
                                : SmallVector<int64_t>{steps, batch, gh});
    Value rb = biasOf(d, 1);
    Value h = initial(initialH, d);
    Value c = lstm ? initial(initialC, d) : Value();
    for (int64_t step = 0; step < steps; ++step) {
      int64_t t = backward ? steps - 1 - step : step;
      stamp = layer;
      Value gxt = reshape(slice(gx, timeAxis, t, t + 1), {batch, gh});
      if (lstm) {
        Value hr = dense(h, rd, rb, {batch, gh});
        stamp = core;
        Value g = binary<AddOp>(gxt, hr);
        Value i = unary<SigmoidOp>(gate(g, 0));
        Value o = unary<SigmoidOp>(gate(g, 1));
        Value f = unary<SigmoidOp>(gate(g, 2));
        Value candidate = unary<TanhOp>(gate(g, 3));
        stamp = state;
        Value kept = binary<MulOp>(f, c);
        Value added = binary<MulOp>(i, candidate);
        c = binary<AddOp>(kept, added);
        h = binary<MulOp>(o, unary<TanhOp>(c));
      } else {
        Value z, reset, candidate;
        if (linearBeforeReset) {
          Value hr = dense(h, rd, rb, {batch, gh});
          stamp = core;
          z = sigmoidOfSum(gxt, hr, 0);
          reset = sigmoidOfSum(gxt, hr, 1);
          Value xh = gate(gxt, 2);
          Value rh = binary<MulOp>(reset, gate(hr, 2));
          candidate = unary<TanhOp>(binary<AddOp>(xh, rh));
        } else {
          // The reset gate applies to h before the candidate's GEMM: the
          // recurrent weights split into the z, r rows and the h rows.
          Value rzr = slice(rd, 1, 0, 2 * hidden);
          Value rh = slice(rd, 1, 2 * hidden, gh);
          Value rbzr = rb ? slice(rb, 0, 0, 2 * hidden) : Value();
          Value rbh = rb ? slice(rb, 0, 2 * hidden, gh) : Value();
          Value hzr = dense(h, rzr, rbzr, {batch, 2 * hidden});
          stamp = core;
          z = sigmoidOfSum(gxt, hzr, 0);
          reset = sigmoidOfSum(gxt, hzr, 1);
          stamp = layer;
          Value hh = dense(binary<MulOp>(reset, h), rh, rbh, {batch, hidden});
          stamp = core;
          Value xh = gate(gxt, 2);
          candidate = unary<TanhOp>(binary<AddOp>(xh, hh));
        }
        stamp = state;
        // h_t = (1 - z) * h' + z * h_{t-1}.
        Value keep = binary<SubOp>(constant(1.0), z);
        Value fresh = binary<MulOp>(keep, candidate);
        Value carried = binary<MulOp>(z, h);
        h = binary<AddOp>(fresh, carried);
      }
      hs[d][t] = h;
    }
    lastH[d] = h;
    lastC[d] = c;
  }

  // The results in the layer's layout: y [S, D, B, H] or [B, S, D, H];
  // y_h, y_c [D, B, H] or [B, D, H].
  stamp = core;
  Value y = op->getResult(0);
  if (!y.use_empty()) {
    SmallVector<Value> perStep;
    for (int64_t t = 0; t < steps; ++t) {
      SmallVector<Value> perDir;
      for (int64_t d = 0; d < dirs; ++d)
        perDir.push_back(reshape(
            hs[d][t], batchFirst ? SmallVector<int64_t>{batch, 1, 1, hidden}
                                 : SmallVector<int64_t>{1, 1, batch, hidden}));
      perStep.push_back(concat(perDir, batchFirst ? 2 : 1));
    }
    map.map(y, concat(perStep, timeAxis));
  }
  auto final = [&](ArrayRef<Value> values, Value result) {
    if (result.use_empty())
      return;
    SmallVector<Value> perDir;
    for (Value v : values)
      perDir.push_back(
          reshape(v, batchFirst ? SmallVector<int64_t>{batch, 1, hidden}
                                : SmallVector<int64_t>{1, batch, hidden}));
    map.map(result, concat(perDir, stateDirAxis));
  };
  final(lastH, op->getResult(1));
  if (lstm)
    final(lastC, op->getResult(2));
  stamp = saved;
  recordForward(start, wasEmpty, scopes, op);
}

SmallVector<Operation *> Differentiator::recompute(ArrayRef<Operation *> run) {
  IRMapping map;
  SmallVector<Operation *> copies;
  for (Operation *op : run) {
    if (isa<WeightOp>(op))
      continue; // Weights are read where they are.
    Operation *copy = b.clone(*op, map);
    copies.push_back(copy);
    recomputed.push_back(copy);
    scopesOf[copy] = scopesOf.lookup(op);
    if (LayerOpInterface original = originalOf.lookup(op))
      originalOf[copy] = original;
    for (auto [from, to] :
         llvm::zip_equal(op->getResults(), copy->getResults())) {
      if (active.contains(from))
        active.insert(to);
      if (weightDerived.contains(from))
        weightDerived.insert(to);
      // The block's results: their adjoints are complete (every use outside
      // the block comes later in the forward, so earlier in the sweep).
      if (Value g = adjoints.lookup(from))
        adjoints[to] = g;
    }
  }
  // The copies sit in the scopes of their originals.
  for (Operation *copy : copies) {
    if (groups.empty() || groups.back().scopes != scopesOf[copy] ||
        groups.back().ops.back()->getNextNode() != copy)
      groups.push_back({{}, scopesOf[copy]});
    groups.back().ops.push_back(copy);
  }
  return copies;
}

void Differentiator::analyzeActivity(Value loss) {
  DenseSet<Value> varied;
  for (WeightOp w : weights)
    varied.insert(w.getResult());
  for (Operation *op : forwardOps)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return varied.contains(v); }))
      for (Value r : op->getResults())
        if (isa<FloatType>(getElementTypeOrSelf(r.getType())))
          varied.insert(r);
  DenseSet<Value> useful{loss};
  for (Operation *op : llvm::reverse(forwardOps))
    if (llvm::any_of(op->getResults(),
                     [&](Value v) { return useful.contains(v); }))
      for (Value v : op->getOperands())
        useful.insert(v);
  for (Value v : varied)
    if (useful.contains(v))
      active.insert(v);
}

void Differentiator::accumulate(Value v, Value contribution) {
  auto [it, inserted] = adjoints.try_emplace(v, contribution);
  if (inserted)
    return;
  // At the precision of the contribution's ops (weight gradients: f32).
  it->second = binary<AddOp>(it->second, contribution);
}

/// The adjoint contribution of `g` (the adjoint of `op`'s result) to
/// operand `index` of `op`; failure when `op` has no rule for it.
FailureOr<Value> Differentiator::operandAdjoint(Operation *op, unsigned index,
                                                Value g) {
  Value x = op->getOperand(index);
  ArrayRef<int64_t> xShape = shapeOf(x);
  Value y = op->getNumResults() == 1 ? op->getResult(0) : Value();

  // Elementwise unary layers.
  if (isa<ReluOp>(op))
    return where(compareWithZero(x, "gt"), g, constant(0.0));
  if (auto leaky = dyn_cast<LeakyReluOp>(op))
    return where(
        compareWithZero(x, "gt"), g,
        binary<MulOp>(g, constant(leaky.getAlpha().convertToDouble())));
  if (isa<SigmoidOp>(op))
    return binary<MulOp>(g, binary<MulOp>(y, binary<SubOp>(constant(1.0), y)));
  if (isa<TanhOp>(op))
    return binary<MulOp>(g, binary<SubOp>(constant(1.0), binary<MulOp>(y, y)));
  if (isa<ExpOp>(op))
    return binary<MulOp>(g, y);
  if (isa<LogOp>(op))
    return binary<DivOp>(g, x);
  if (isa<NegOp>(op))
    return unary<NegOp>(g);
  if (isa<SqrtOp>(op))
    return binary<MulOp>(g, binary<DivOp>(constant(0.5), y));
  if (isa<RsqrtOp>(op)) // d/dx x^-1/2 = -y^3 / 2
    return binary<MulOp>(
        g,
        binary<MulOp>(constant(-0.5), binary<MulOp>(y, binary<MulOp>(y, y))));
  if (isa<ReciprocalOp>(op))
    return unary<NegOp>(binary<MulOp>(g, binary<MulOp>(y, y)));
  // Piecewise constant: no gradient (0 everywhere, as PyTorch).
  if (isa<FloorOp, CeilOp, RoundOp, SignOp>(op))
    return binary<MulOp>(g, constant(0.0));
  if (isa<SinOp>(op))
    return binary<MulOp>(g, unary<CosOp>(x));
  if (isa<CosOp>(op))
    return unary<NegOp>(binary<MulOp>(g, unary<SinOp>(x)));
  if (isa<TanOp>(op)) // 1 + tan^2
    return binary<MulOp>(g, binary<AddOp>(constant(1.0), binary<MulOp>(y, y)));
  if (isa<SinhOp>(op))
    return binary<MulOp>(g, unary<CoshOp>(x));
  if (isa<CoshOp>(op))
    return binary<MulOp>(g, unary<SinhOp>(x));
  if (isa<AtanOp>(op)) // 1 / (1 + x^2)
    return binary<DivOp>(g, binary<AddOp>(constant(1.0), binary<MulOp>(x, x)));
  if (isa<AtanhOp>(op)) // 1 / (1 - x^2)
    return binary<DivOp>(g, binary<SubOp>(constant(1.0), binary<MulOp>(x, x)));
  if (isa<AsinOp, AcosOp>(op)) { // +-1 / sqrt(1 - x^2)
    Value d = binary<MulOp>(
        g, unary<RsqrtOp>(binary<SubOp>(constant(1.0), binary<MulOp>(x, x))));
    return isa<AsinOp>(op) ? d : unary<NegOp>(d);
  }
  if (isa<AsinhOp>(op)) // 1 / sqrt(x^2 + 1)
    return binary<MulOp>(
        g, unary<RsqrtOp>(binary<AddOp>(binary<MulOp>(x, x), constant(1.0))));
  if (isa<AcoshOp>(op)) // 1 / sqrt(x^2 - 1)
    return binary<MulOp>(
        g, unary<RsqrtOp>(binary<SubOp>(binary<MulOp>(x, x), constant(1.0))));
  if (isa<AbsOp>(op)) // 0 at 0, as PyTorch
    return where(
        compareWithZero(x, "gt"), g,
        where(compareWithZero(x, "lt"), unary<NegOp>(g), constant(0.0)));
  if (isa<ErfOp>(op))
    return binary<MulOp>(
        g, binary<MulOp>(constant(M_2_SQRTPI),
                         unary<ExpOp>(unary<NegOp>(binary<MulOp>(x, x)))));
  if (auto elu = dyn_cast<EluOp>(op)) // y + alpha below 0
    return where(
        compareWithZero(x, "gt"), g,
        binary<MulOp>(
            g, binary<AddOp>(y, constant(elu.getAlpha().convertToDouble()))));
  if (auto clip = dyn_cast<ClipOp>(op)) // dy inside [min, max], else 0
    return where(
        compare(x, constant(clip.getMin().convertToDouble()), "lt"),
        constant(0.0),
        where(compare(x, constant(clip.getMax().convertToDouble()), "gt"),
              constant(0.0), g));
  if (isa<HardSigmoidOp, HardSwishOp>(op)) {
    double alpha = 1.0 / 6, beta = 0.5;
    if (auto hs = dyn_cast<HardSigmoidOp>(op)) {
      alpha = hs.getAlpha().convertToDouble();
      beta = hs.getBeta().convertToDouble();
    }
    // u = alpha x + beta; hard_sigmoid' = alpha where 0 < u < 1.
    Value u = binary<AddOp>(binary<MulOp>(x, constant(alpha)), constant(beta));
    Value inside = where(
        compareWithZero(u, "gt"),
        where(compare(u, constant(1.0), "lt"), constant(alpha), constant(0.0)),
        constant(0.0));
    if (isa<HardSigmoidOp>(op))
      return binary<MulOp>(g, inside);
    // hard_swish = x hs(x): hs(x) + x hs'(x), hs(x) = clip(u, 0, 1).
    Value hs = make<ClipOp>(x.getType(), {u},
                            {b.getNamedAttr("min", b.getF64FloatAttr(0.0)),
                             b.getNamedAttr("max", b.getF64FloatAttr(1.0))});
    return binary<MulOp>(g, binary<AddOp>(hs, binary<MulOp>(x, inside)));
  }
  if (isa<SiluOp>(op)) {
    Value s = unary<SigmoidOp>(x);
    Value d = binary<MulOp>(
        s, binary<AddOp>(constant(1.0),
                         binary<MulOp>(x, binary<SubOp>(constant(1.0), s))));
    return binary<MulOp>(g, d);
  }
  if (auto gelu = dyn_cast<GeluOp>(op)) {
    if (gelu.getApproximate()) {
      // y = x/2 (1 + t), t = tanh(c (x + a x^3)), c = sqrt(2/pi):
      // dy/dx = (1 + t)/2 + x/2 (1 - t^2) c (1 + 3a x^2).
      const double a = 0.044715, c = M_2_SQRTPI * M_SQRT1_2;
      Value x2 = binary<MulOp>(x, x);
      Value inner = binary<MulOp>(
          binary<MulOp>(
              x, binary<AddOp>(constant(1.0), binary<MulOp>(constant(a), x2))),
          constant(c));
      Value t = unary<TanhOp>(inner);
      Value left =
          binary<MulOp>(constant(0.5), binary<AddOp>(constant(1.0), t));
      Value slope = binary<MulOp>(
          constant(0.5 * c),
          binary<MulOp>(binary<SubOp>(constant(1.0), binary<MulOp>(t, t)),
                        binary<AddOp>(constant(1.0),
                                      binary<MulOp>(constant(3 * a), x2))));
      return binary<MulOp>(g, binary<AddOp>(left, binary<MulOp>(x, slope)));
    }
    // d/dx x * Phi(x) = Phi(x) + x * phi(x).
    Value cdf = binary<MulOp>(
        constant(0.5),
        binary<AddOp>(constant(1.0),
                      unary<ErfOp>(binary<MulOp>(x, constant(M_SQRT1_2)))));
    Value pdf = binary<MulOp>(
        constant(0.5 * M_2_SQRTPI * M_SQRT1_2),
        unary<ExpOp>(binary<MulOp>(constant(-0.5), binary<MulOp>(x, x))));
    return binary<MulOp>(g, binary<AddOp>(cdf, binary<MulOp>(x, pdf)));
  }

  // Elementwise binary layers (numpy broadcasting).
  if (isa<AddOp>(op))
    return unbroadcast(g, xShape);
  if (isa<SubOp>(op))
    return unbroadcast(index == 0 ? g : unary<NegOp>(g), xShape);
  if (isa<MulOp>(op))
    return unbroadcast(binary<MulOp>(g, op->getOperand(1 - index)), xShape);
  if (isa<DivOp>(op)) {
    Value rhs = op->getOperand(1);
    if (index == 0)
      return unbroadcast(binary<DivOp>(g, rhs), xShape);
    return unbroadcast(unary<NegOp>(binary<MulOp>(g, binary<DivOp>(y, rhs))),
                       xShape);
  }

  // Data movement.
  if (isa<MaximumOp, MinimumOp>(op)) {
    // The adjoint goes to the operand selected (to lhs on ties).
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Value pick = compare(lhs, rhs, isa<MaximumOp>(op) ? "ge" : "le");
    Value toLhs = where(pick, g, constant(0.0));
    Value toRhs = where(pick, constant(0.0), g);
    return unbroadcast(index == 0 ? toLhs : toRhs, xShape);
  }
  if (isa<PowOp>(op)) {
    Value base = op->getOperand(0), exponent = op->getOperand(1);
    if (index == 0) { // e * a^(e - 1)
      Value lower = binary<PowOp>(base, binary<SubOp>(exponent, constant(1.0)));
      return unbroadcast(binary<MulOp>(g, binary<MulOp>(exponent, lower)),
                         xShape);
    }
    return unbroadcast(binary<MulOp>(g, binary<MulOp>(y, unary<LogOp>(base))),
                       xShape);
  }
  if (auto sel = dyn_cast<WhereOp>(op)) {
    if (index == 0)
      return failure();
    Value picked = index == 1 ? where(sel.getCondition(), g, constant(0.0))
                              : where(sel.getCondition(), constant(0.0), g);
    return unbroadcast(picked, xShape);
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    int64_t axis = static_cast<int64_t>(concat.getAxis());
    if (axis < 0)
      axis += xShape.size();
    int64_t start = 0;
    for (unsigned i = 0; i < index; ++i)
      start += shapeOf(op->getOperand(i))[axis];
    return make<SliceOp>(
        x.getType(), {g},
        {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({axis})),
         b.getNamedAttr("starts", b.getDenseI64ArrayAttr({start})),
         b.getNamedAttr("ends", b.getDenseI64ArrayAttr({start + xShape[axis]})),
         b.getNamedAttr("steps", b.getDenseI64ArrayAttr({1}))});
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // Zeros around the slice: a constant pad of dy (steps of 1 only).
    SmallVector<int64_t> before(xShape.size(), 0), after(xShape.size(), 0);
    ArrayRef<int64_t> ys = shapeOf(y);
    if (llvm::any_of(slice.getSteps(), [](int64_t st) { return st != 1; })) {
      // Steps: each sliced axis maps output i to input start + i * step; dx
      // is dy multiplied back through those selections, axis by axis.
      Value dx = g;
      for (auto [a, start, step] : llvm::zip_equal(
               slice.getAxes(), slice.getStarts(), slice.getSteps())) {
        int64_t axis = a < 0 ? a + int64_t(xShape.size()) : a;
        int64_t in = shapeOf(dx)[axis], out = xShape[axis];
        SmallVector<float> m(in * out, 0.0f);
        for (int64_t i = 0; i < in; ++i)
          m[i * out + start + i * step] = 1.0f;
        dx = alongAxis(dx, axis, out, m);
      }
      return dx;
    }
    for (auto [a, start, step] : llvm::zip_equal(
             slice.getAxes(), slice.getStarts(), slice.getSteps())) {
      int64_t axis = a < 0 ? a + int64_t(xShape.size()) : a;
      int64_t dim = xShape[axis];
      int64_t first =
          std::clamp<int64_t>(start < 0 ? start + dim : start, 0, dim);
      before[axis] = first;
      after[axis] = dim - first - ys[axis];
    }
    SmallVector<int64_t> pads(before);
    pads.append(after);
    return make<PadOp>(x.getType(), {g},
                       {b.getNamedAttr("pads", b.getDenseI64ArrayAttr(pads))});
  }
  if (auto pad = dyn_cast<PadOp>(op)) {
    ArrayRef<int64_t> pads = pad.getPads();
    int64_t rank = xShape.size();
    if (pad.getMode() != "constant") {
      // reflect / edge: output i of a padded axis reads input src(i) (as
      // the op's description says); dy goes back through that selection.
      Value dx = g;
      for (int64_t d = 0; d < rank; ++d) {
        if (pads[d] == 0 && pads[rank + d] == 0)
          continue;
        int64_t n = xShape[d], in = shapeOf(dx)[d];
        SmallVector<float> m(in * n, 0.0f);
        for (int64_t i = 0; i < in; ++i) {
          int64_t src = i - pads[d];
          if (src < 0 || src >= n) {
            if (pad.getMode() == "edge")
              src = src < 0 ? 0 : n - 1;
            else
              src = src < 0 ? -src : 2 * (n - 1) - src;
          }
          m[i * n + src] += 1.0f;
        }
        dx = alongAxis(dx, d, n, m);
      }
      return dx;
    }
    SmallVector<int64_t> axes, starts, ends, steps;
    for (int64_t i = 0; i < rank; ++i) {
      axes.push_back(i);
      starts.push_back(pads[i]);
      ends.push_back(pads[i] + xShape[i]);
      steps.push_back(1);
    }
    return make<SliceOp>(
        x.getType(), {g},
        {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
         b.getNamedAttr("starts", b.getDenseI64ArrayAttr(starts)),
         b.getNamedAttr("ends", b.getDenseI64ArrayAttr(ends)),
         b.getNamedAttr("steps", b.getDenseI64ArrayAttr(steps))});
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // y = x's slices at the (constant) indices along the axis: dy, viewed
    // with the indices as one axis, summed back into the rows they select.
    if (gather.getRuntimeIndices()) {
      refusal = "it gathers by indices computed at run time (only constant "
                "indices have a gradient so far)";
      return failure();
    }
    int64_t rank = xShape.size();
    int64_t axis = static_cast<int64_t>(gather.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> idx;
    for (const APInt &v : gather.getIndices()->getValues<APInt>())
      idx.push_back(v.getSExtValue());
    int64_t in = idx.size(), out = xShape[axis];
    SmallVector<int64_t> viewed(xShape);
    viewed[axis] = in;
    SmallVector<float> m(in * out, 0.0f);
    for (auto [i, at] : llvm::enumerate(idx))
      m[i * out + at] += 1.0f;
    return alongAxis(reshape(g, viewed), axis, out, m);
  }
  if (auto resize = dyn_cast<ResizeOp>(op)) {
    // Separable: y = A_rows x A_cols^T per plane, each output a weighted
    // pick of one, two or four inputs per axis (resizeTap, resizeCubicTap):
    // dx = A_rows^T dy A_cols, the interpolation weights rounded to f32 once.
    Value dx = g;
    bool cubic = resize.getMode() == "cubic";
    for (unsigned dim : {1u, 0u}) {
      int64_t in = shapeOf(dx)[2 + dim], out = xShape[2 + dim];
      SmallVector<float> m(in * out, 0.0f);
      for (int64_t i = 0; i < in; ++i) {
        if (cubic) {
          ResizeCubicTap tap = resizeCubicTap(resize, dim, i, out, in);
          for (int t = 0; t < 4; ++t)
            m[i * out + tap.index[t]] += float(tap.weight[t]);
          continue;
        }
        ResizeTap tap = resizeTap(resize, dim, i, out, in);
        m[i * out + tap.lo] += float(1 - tap.frac);
        m[i * out + tap.hi] += float(tap.frac);
      }
      dx = alongAxis(dx, 2 + dim, out, m);
    }
    return dx;
  }
  if (auto glu = dyn_cast<GluOp>(op)) {
    // y = a * s, s = sigmoid(b), x = [a, b] along the axis:
    // da = dy * s, db = dy * a * s * (1 - s).
    int64_t rank = xShape.size();
    int64_t axis = static_cast<int64_t>(glu.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t half = xShape[axis] / 2;
    Value a = slice(x, axis, 0, half),
          s = unary<SigmoidOp>(slice(x, axis, half, 2 * half));
    Value da = binary<MulOp>(g, s);
    Value daA = binary<MulOp>(da, a);
    Value ds = binary<SubOp>(constant(1.0), s);
    Value db = binary<MulOp>(daA, ds);
    return concat({da, db}, axis);
  }
  if (isa<ReshapeOp, FlattenOp>(op))
    return reshape(g, xShape);
  if (auto t = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> perm = t.getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = i;
    return transpose(g, inverse);
  }
  if (isa<ExpandOp>(op))
    return unbroadcast(g, xShape);

  // Reductions.
  if (isa<ReduceProdOp>(op)) {
    refusal = "the gradient of a product (per element, the product of the "
              "others, which y / x is not where x = 0) is not implemented";
    return failure();
  }
  if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceL2Op>(
          op)) {
    ArrayRef<int64_t> axesAttr = op->getAttrOfType<DenseI64ArrayAttr>("axes");
    SmallVector<int64_t> kept(xShape);
    int64_t count = 1;
    for (auto [i, d] : llvm::enumerate(xShape)) {
      bool reduced =
          axesAttr.empty() || llvm::any_of(axesAttr, [&, i = i](int64_t a) {
            return (a < 0 ? a + int64_t(xShape.size()) : a) == int64_t(i);
          });
      if (reduced) {
        kept[i] = 1;
        count *= d;
      }
    }
    Value spread = make<ExpandOp>(x.getType(), {reshape(g, kept)});
    if (isa<ReduceSumOp>(op))
      return spread;
    if (isa<ReduceMeanOp>(op))
      return binary<DivOp>(spread, constant(double(count)));
    Value yKept = reshape(y, kept);
    if (isa<ReduceL2Op>(op)) {
      // y = sqrt(sum x^2): dx = dy * x / y, and 0 where y = 0 (the
      // subgradient PyTorch's norm takes at the origin).
      Value zero = compareWithZero(yKept, "eq");
      Value safe = where(zero, constant(1.0), yKept);
      Value dx = binary<MulOp>(spread, binary<DivOp>(x, safe));
      return where(zero, constant(0.0), dx);
    }
    // reduce_max / reduce_min: dy shared equally by the elements equal to
    // the extreme (PyTorch's amax / amin), 0 elsewhere.
    Value hit = compare(x, yKept, "eq");
    Value one = constant(1.0);
    Value ones = where(hit, one, constant(0.0));
    SmallVector<int64_t> reducedAxes;
    for (auto [i, d] : llvm::enumerate(kept))
      if (d == 1 && xShape[i] != 1)
        reducedAxes.push_back(i);
    Value ties = reduceSum(ones, reducedAxes, /*keepdims=*/true);
    Value shared = binary<DivOp>(spread, ties);
    return where(hit, shared, constant(0.0));
  }
  if (isa<GlobalAvgPoolOp>(op)) {
    SmallVector<int64_t> kept(xShape);
    for (size_t i = 2; i < kept.size(); ++i)
      kept[i] = 1;
    Value spread = make<ExpandOp>(x.getType(), {reshape(g, kept)});
    return binary<DivOp>(spread,
                         constant(double(numElements(xShape.drop_front(2)))));
  }

  // Softmax family.
  if (auto softmax = dyn_cast<SoftmaxOp>(op)) {
    int64_t axis = softmax.getAxis();
    if (axis < 0)
      axis += xShape.size();
    Value dot = reduceSum(binary<MulOp>(g, y), {axis}, /*keepdims=*/true);
    return binary<MulOp>(y, binary<SubOp>(g, dot));
  }
  if (auto logSoftmax = dyn_cast<LogSoftmaxOp>(op)) {
    int64_t axis = logSoftmax.getAxis();
    if (axis < 0)
      axis += xShape.size();
    Value sum = reduceSum(g, {axis}, /*keepdims=*/true);
    return binary<SubOp>(g, binary<MulOp>(unary<ExpOp>(y), sum));
  }

  // GEMMs.
  if (auto conv = dyn_cast<ConvTranspose2DOp>(op))
    return convTransposeAdjoint(conv, index, g);
  if (auto dense = dyn_cast<DenseOp>(op)) {
    Value in = dense.getInput(), w = dense.getWeight();
    ArrayRef<int64_t> inShape = shapeOf(in);
    int64_t k = inShape.back(), n = shapeOf(w).back();
    int64_t m = numElements(inShape) / k;
    Value g2 = reshape(g, {m, n});
    if (index == 0)
      return reshape(matmul(g2, transpose(w, {1, 0})), inShape);
    if (index == 1)
      return matmul(transpose(reshape(in, {m, k}), {1, 0}), g2);
    return reduceSum(g2, {0}, /*keepdims=*/false);
  }
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    int64_t rank = xShape.size();
    SmallVector<int64_t> swap(rank);
    std::iota(swap.begin(), swap.end(), 0);
    std::swap(swap[rank - 1], swap[rank - 2]);
    if (index == 0)
      return matmul(g, transpose(mm.getRhs(), swap));
    return matmul(transpose(mm.getLhs(), swap), g);
  }

  if (auto conv = dyn_cast<Conv2DOp>(op))
    return conv2dAdjoint(conv, index, g);
  if (auto pool = dyn_cast<AvgPool2DOp>(op))
    return avgPoolAdjoint(pool, g);
  if (auto pool = dyn_cast<MaxPool2DOp>(op))
    return maxPoolAdjoint(pool, g);

  // Normalization.
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    Value in = ln.getInput();
    ArrayRef<int64_t> inShape = shapeOf(in);
    int64_t rank = inShape.size();
    int64_t axis = static_cast<int64_t>(ln.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> normAxes, leadAxes;
    for (int64_t i = 0; i < rank; ++i)
      (i >= axis ? normAxes : leadAxes).push_back(i);
    int64_t d = numElements(inShape.drop_front(axis));
    // Recompute x-hat as the forward does.
    Value mean =
        binary<DivOp>(reduceSum(in, normAxes, true), constant(double(d)));
    Value centered = binary<SubOp>(in, mean);
    Value var = binary<DivOp>(
        reduceSum(binary<MulOp>(centered, centered), normAxes, true),
        constant(double(d)));
    Value rstd = unary<RsqrtOp>(
        binary<AddOp>(var, constant(ln.getEpsilon().convertToDouble())));
    Value xhat = binary<MulOp>(centered, rstd);
    if (index == 1)
      return reshape(reduceSum(binary<MulOp>(g, xhat), leadAxes, false),
                     xShape);
    if (index == 2)
      return reshape(reduceSum(g, leadAxes, false), xShape);
    Value gh = binary<MulOp>(g, ln.getGamma());
    Value meanG =
        binary<DivOp>(reduceSum(gh, normAxes, true), constant(double(d)));
    Value meanGX =
        binary<DivOp>(reduceSum(binary<MulOp>(gh, xhat), normAxes, true),
                      constant(double(d)));
    return binary<MulOp>(rstd, binary<SubOp>(binary<SubOp>(gh, meanG),
                                             binary<MulOp>(xhat, meanGX)));
  }

  // Losses (their result is the scalar loss).
  if (isa<MseLossOp>(op)) {
    // L = sum((p - t)^2) / N.
    Value diff = binary<SubOp>(op->getOperand(0), op->getOperand(1));
    Value scale = binary<DivOp>(binary<MulOp>(g, constant(2.0)),
                                constant(double(numElements(xShape))));
    Value dp = binary<MulOp>(diff, scale);
    return index == 0 ? dp : unary<NegOp>(dp);
  }
  if (auto embedding = dyn_cast<EmbeddingOp>(op)) {
    // y[s] = table[ids[s]]: dtable = onehot(ids)^T dy, the rows of dy summed
    // into the rows their indices select (an index outside [0, V) is
    // clamped into it, as the compiled forward pass reads it). The one-hot
    // is a comparison of the indices, converted to f32 (exact below 2^24),
    // with 0 .. V-1: [N, V] values.
    if (index != 1)
      return failure();
    Value ids = embedding.getIndices();
    ArrayRef<int64_t> idsShape = shapeOf(ids);
    int64_t n = numElements(idsShape), v = xShape[0], d = xShape[1];
    if (v > (int64_t(1) << 24)) {
      refusal = "the table has " + std::to_string(v) +
                " rows, and its one-hot compares indices converted to f32, "
                "exact up to 2^24";
      return failure();
    }
    return matmul(transpose(oneHot(ids, v), {1, 0}), reshape(g, {n, d}));
  }
  if (auto ce = dyn_cast<CrossEntropyLossOp>(op)) {
    if (index != 0)
      return failure();
    // L = mean_i(logsumexp(z_i) - z_i[label_i]):
    // dz = (softmax(z) - onehot(labels)) / N, labels clamped into [0, C)
    // as the compiled forward pass clamps them.
    int64_t n = xShape[0], c = xShape[1];
    if (c > (int64_t(1) << 24)) {
      refusal = std::to_string(c) +
                " classes, and the one-hot compares labels converted to f32, "
                "exact up to 2^24";
      return failure();
    }
    Value probs = make<SoftmaxOp>(
        x.getType(), {x}, {b.getNamedAttr("axis", b.getI64IntegerAttr(1))});
    Value onehot = oneHot(ce.getLabels(), c);
    Value scale = binary<DivOp>(g, constant(double(n)));
    return binary<MulOp>(binary<SubOp>(probs, onehot), scale);
  }
  return failure();
}

/// conv2d: y[n, f] = sum over the group's channels c of x[n, c] (*) w[f, c]
/// (a cross-correlation with strides s, dilations d, padding p).
/// - dx: the transposed convolution of dy with the same weights, strides,
///   dilations, padding and groups, with the output padding that gives x's
///   size back;
/// - dw: per group, the cross-correlation of x with dy, i.e. a conv2d of
///   x^T (channels as batch, samples as channels) with dy^T as weights, with
///   strides and dilations exchanged, then cropped to the kernel size;
/// - db: dy summed over samples and pixels.
FailureOr<Value> Differentiator::conv2dAdjoint(Conv2DOp conv, unsigned index,
                                               Value g) {
  Value x = conv.getInput(), w = conv.getWeight();
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w), gs = shapeOf(g);
  ArrayRef<int64_t> strides = conv.getStrides(), dil = conv.getDilations(),
                    pad = conv.getPadding();
  int64_t groups = static_cast<int64_t>(conv.getGroups());
  if (index == 2)
    return reduceSum(g, {0, 2, 3}, /*keepdims=*/false);
  if (index == 0) {
    int64_t full[2];
    for (int i = 0; i < 2; ++i)
      full[i] = (gs[2 + i] - 1) * strides[i] - pad[i] - pad[i + 2] +
                dil[i] * (ws[2 + i] - 1) + 1;
    int64_t outPad[2] = {xs[2] - full[0], xs[3] - full[1]};
    return make<ConvTranspose2DOp>(
        x.getType(), {g, w},
        {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)),
         b.getNamedAttr("padding", b.getDenseI64ArrayAttr(pad)),
         b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dil)),
         b.getNamedAttr("output_padding", b.getDenseI64ArrayAttr(outPad)),
         b.getNamedAttr("groups", b.getI64IntegerAttr(groups))});
  }
  return convWeightGradient(x, g, ws, strides, dil, pad, groups);
}

Value Differentiator::convWeightGradient(Value x, Value g, ArrayRef<int64_t> ws,
                                         ArrayRef<int64_t> strides,
                                         ArrayRef<int64_t> dil,
                                         ArrayRef<int64_t> pad,
                                         int64_t groups) {
  ArrayRef<int64_t> xs = shapeOf(x), gs = shapeOf(g);
  int64_t n = xs[0], c = xs[1], f = ws[0], kh = ws[2], kw = ws[3];
  int64_t oh = gs[2], ow = gs[3], cg = c / groups, fg = f / groups;
  // x^T: [Cg, G * N, H, W] with channel (group, sample).
  Value xt = reshape(
      transpose(reshape(x, {n, groups, cg, xs[2], xs[3]}), {2, 1, 0, 3, 4}),
      {cg, groups * n, xs[2], xs[3]});
  // dy^T: [F, N, OH, OW], output channels in group order.
  Value gt =
      reshape(transpose(reshape(g, {n, groups, fg, oh, ow}), {1, 2, 0, 3, 4}),
              {f, n, oh, ow});
  int64_t k[2];
  for (int i = 0; i < 2; ++i)
    k[i] =
        (xs[2 + i] + pad[i] + pad[i + 2] - strides[i] * (gs[2 + i] - 1) - 1) /
            dil[i] +
        1;
  Value corr = make<Conv2DOp>(
      tensorType({cg, f, k[0], k[1]}), {xt, gt},
      {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(dil)),
       b.getNamedAttr("padding", b.getDenseI64ArrayAttr(pad)),
       b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(strides)),
       b.getNamedAttr("groups", b.getI64IntegerAttr(groups))});
  corr = slice(slice(corr, 2, 0, kh), 3, 0, kw);
  return transpose(corr, {1, 0, 2, 3});
}

/// conv_transpose2d, the adjoint of a conv2d C with the same weights,
/// strides, dilations, padding and groups (y = C^T x):
/// - dx = C dy, a conv2d of dy (cropped to x's size when an output padding
///   of at least the stride made y longer);
/// - dw: <C(dy, w), x> is linear in w, so dw is C's weight gradient with dy
///   as its input and x as its output adjoint;
/// - db: dy summed over samples and pixels.
FailureOr<Value> Differentiator::convTransposeAdjoint(ConvTranspose2DOp conv,
                                                      unsigned index, Value g) {
  Value x = conv.getInput(), w = conv.getWeight();
  ArrayRef<int64_t> xs = shapeOf(x), gs = shapeOf(g);
  ArrayRef<int64_t> strides = conv.getStrides(), dil = conv.getDilations(),
                    pad = conv.getPadding();
  int64_t groups = static_cast<int64_t>(conv.getGroups());
  if (index == 2)
    return reduceSum(g, {0, 2, 3}, /*keepdims=*/false);
  if (index == 1)
    return convWeightGradient(g, x, shapeOf(w), strides, dil, pad, groups);
  int64_t out[2];
  for (int i = 0; i < 2; ++i)
    out[i] = (gs[2 + i] + pad[i] + pad[i + 2] -
              dil[i] * (shapeOf(w)[2 + i] - 1) - 1) /
                 strides[i] +
             1;
  Value dx = make<Conv2DOp>(
      tensorType({xs[0], xs[1], out[0], out[1]}), {g, w},
      {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)),
       b.getNamedAttr("padding", b.getDenseI64ArrayAttr(pad)),
       b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dil)),
       b.getNamedAttr("groups", b.getI64IntegerAttr(groups))});
  return slice(slice(dx, 2, 0, xs[2]), 3, 0, xs[3]);
}

Value Differentiator::alongAxis(Value v, int64_t axis, int64_t out,
                                ArrayRef<float> m) {
  ArrayRef<int64_t> vs = shapeOf(v);
  int64_t rank = vs.size(), in = vs[axis];
  SmallVector<int64_t> perm, inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      perm.push_back(i);
  perm.push_back(axis);
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  Value t = axis == rank - 1 ? v : transpose(v, perm);
  SmallVector<int64_t> shape(shapeOf(t));
  shape.back() = out;
  Value mapped =
      make<DenseOp>(tensorType(shape), {t, constantTensor({in, out}, m)});
  return axis == rank - 1 ? mapped : transpose(mapped, inverse);
}

/// avg_pool2d: each output's adjoint, divided by its window's count,
/// spread back over the window: a depthwise transposed convolution of
/// dy / count with a kernel of ones (count is the window size with
/// count_include_pad, else the number of its cells inside the input, a
/// constant of the layer's shape).
FailureOr<Value> Differentiator::avgPoolAdjoint(AvgPool2DOp pool, Value g) {
  Value x = pool.getInput();
  ArrayRef<int64_t> xs = shapeOf(x), gs = shapeOf(g);
  ArrayRef<int64_t> kernel = pool.getKernel(), strides = pool.getStrides(),
                    pad = pool.getPadding();
  int64_t c = xs[1];
  SmallVector<float> counts(gs[2] * gs[3]);
  for (int64_t i = 0; i < gs[2]; ++i)
    for (int64_t j = 0; j < gs[3]; ++j) {
      int64_t count = kernel[0] * kernel[1];
      if (!pool.getCountIncludePad()) {
        int64_t h0 = i * strides[0] - pad[0], w0 = j * strides[1] - pad[1];
        int64_t rows =
            std::min(h0 + kernel[0], xs[2]) - std::max<int64_t>(h0, 0);
        int64_t cols =
            std::min(w0 + kernel[1], xs[3]) - std::max<int64_t>(w0, 0);
        count = rows * cols;
      }
      counts[i * gs[3] + j] = float(count);
    }
  Value counted = constantTensor({gs[2], gs[3]}, counts);
  Value ones = constantTensor({c, 1, kernel[0], kernel[1]}, {1.0f});
  int64_t full[2];
  for (int i = 0; i < 2; ++i)
    full[i] = (gs[2 + i] - 1) * strides[i] - pad[i] - pad[i + 2] + kernel[i];
  int64_t outPad[2] = {xs[2] - full[0], xs[3] - full[1]};
  return make<ConvTranspose2DOp>(
      x.getType(), {binary<DivOp>(g, counted), ones},
      {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)),
       b.getNamedAttr("padding", b.getDenseI64ArrayAttr(pad)),
       b.getNamedAttr("output_padding", b.getDenseI64ArrayAttr(outPad)),
       b.getNamedAttr("groups", b.getI64IntegerAttr(c))});
}

/// max_pool2d: dy goes to the first cell (in window order) of each window
/// that holds its maximum, as PyTorch's and ONNX's argmax. For each kernel
/// offset (i, j), the cells it reads are a strided slice of x padded with
/// -inf (padded cells never win); a cell is selected where it equals y and
/// no earlier offset was. The selected dy of every offset is then put back
/// where it came from by one grouped conv_transpose2d whose kernel is the
/// one-hot of the offset, and the padding is cropped.
Value Differentiator::maxPoolAdjoint(MaxPool2DOp pool, Value g) {
  Value x = pool.getInput(), y = pool.getResult();
  ArrayRef<int64_t> xs = shapeOf(x), ys = shapeOf(y);
  ArrayRef<int64_t> k = pool.getKernel(), s = pool.getStrides(),
                    p = pool.getPadding(), d = pool.getDilations();
  int64_t n = xs[0], c = xs[1], oh = ys[2], ow = ys[3], kk = k[0] * k[1];
  // Cells of the padded input the windows read, and how many of them lie
  // after the input (negative: the last cells of the input are read by no
  // window).
  int64_t extent[2], after[2];
  for (int i = 0; i < 2; ++i) {
    extent[i] = (ys[2 + i] - 1) * s[i] + d[i] * (k[i] - 1) + 1;
    after[i] = extent[i] - p[i] - xs[2 + i];
  }
  int64_t padAfter[2] = {std::max<int64_t>(after[0], 0),
                         std::max<int64_t>(after[1], 0)};
  Value xp = x;
  if (p[0] || p[1] || padAfter[0] || padAfter[1])
    xp = make<PadOp>(
        tensorType(
            {n, c, xs[2] + p[0] + padAfter[0], xs[3] + p[1] + padAfter[1]}),
        {x},
        {b.getNamedAttr("pads",
                        b.getDenseI64ArrayAttr({0, 0, p[0], p[1], 0, 0,
                                                padAfter[0], padAfter[1]})),
         b.getNamedAttr("mode", b.getStringAttr("constant")),
         b.getNamedAttr(
             "value",
             b.getF64FloatAttr(-std::numeric_limits<double>::infinity()))});
  Value taken;
  SmallVector<Value> parts;
  for (int64_t i = 0; i < k[0]; ++i)
    for (int64_t j = 0; j < k[1]; ++j) {
      int64_t start[2] = {i * d[0], j * d[1]};
      Value cells = make<SliceOp>(
          tensorType({n, c, oh, ow}), {xp},
          {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({2, 3})),
           b.getNamedAttr("starts", b.getDenseI64ArrayAttr(start)),
           b.getNamedAttr("ends", b.getDenseI64ArrayAttr(
                                      {start[0] + (oh - 1) * s[0] + 1,
                                       start[1] + (ow - 1) * s[1] + 1})),
           b.getNamedAttr("steps", b.getDenseI64ArrayAttr(s))});
      Value hit = compare(cells, y, "eq");
      Value selected =
          taken ? where(hit, binary<SubOp>(constant(1.0), taken), constant(0.0))
                : where(hit, constant(1.0), constant(0.0));
      taken = taken ? binary<AddOp>(taken, selected) : selected;
      parts.push_back(reshape(binary<MulOp>(g, selected), {n, c, 1, oh, ow}));
    }
  Value stacked =
      parts.size() == 1
          ? parts.front()
          : make<ConcatOp>(tensorType({n, c, kk, oh, ow}), parts,
                           {b.getNamedAttr("axis", b.getI64IntegerAttr(2))});
  stacked = reshape(stacked, {n, c * kk, oh, ow});
  // The kernel of input channel (ch, i, j): 1 at (i, j).
  SmallVector<float> onehot(c * kk * kk, 0.0f);
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t o = 0; o < kk; ++o)
      onehot[(ch * kk + o) * kk + o] = 1.0f;
  Value kernel = constantTensor({c * kk, 1, k[0], k[1]}, onehot);
  Value dxp = make<ConvTranspose2DOp>(
      tensorType({n, c, extent[0], extent[1]}), {stacked, kernel},
      {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(s)),
       b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(d)),
       b.getNamedAttr("groups", b.getI64IntegerAttr(c))});
  // Back to x's cells: zeros for the cells no window reads, then the
  // padding cropped.
  if (after[0] < 0 || after[1] < 0) {
    int64_t more[2] = {std::max<int64_t>(-after[0], 0),
                       std::max<int64_t>(-after[1], 0)};
    dxp = make<PadOp>(
        tensorType({n, c, extent[0] + more[0], extent[1] + more[1]}), {dxp},
        {b.getNamedAttr("pads", b.getDenseI64ArrayAttr(
                                    {0, 0, 0, 0, 0, 0, more[0], more[1]}))});
  }
  if (shapeOf(dxp) == xs)
    return dxp;
  return make<SliceOp>(
      x.getType(), {dxp},
      {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({2, 3})),
       b.getNamedAttr("starts", b.getDenseI64ArrayAttr({p[0], p[1]})),
       b.getNamedAttr("ends",
                      b.getDenseI64ArrayAttr({p[0] + xs[2], p[1] + xs[3]})),
       b.getNamedAttr("steps", b.getDenseI64ArrayAttr({1, 1}))});
}

LogicalResult Differentiator::differentiate(Operation *op) {
  if (isa<WeightOp>(op))
    return success();
  if (llvm::none_of(op->getResults(),
                    [&](Value r) { return active.contains(r); }))
    return success();
  auto noRule = [&](std::optional<unsigned> index) {
    Operation *original =
        originalOf.count(op) ? originalOf[op].getOperation() : op;
    InFlightDiagnostic diag = original->emitError()
                              << "mix-differentiate: no gradient rule for '"
                              << op->getName().getStringRef() << "'";
    if (index)
      diag << " with respect to operand #" << *index;
    if (!refusal.empty())
      diag << ": " << refusal;
    diag.attachNote(forward.getLoc())
        << "needed for the gradient of the loss of network @"
        << forward.getSymName();
    return failure();
  };
  if (auto cast = dyn_cast<CastOp>(op)) {
    // A float-to-float cast (an imported model's Cast), straight through:
    // dy converted back to the input's type if it differs. Integer inputs
    // are never active.
    Value g = adjoints.lookup(cast.getResult());
    if (!g)
      return success();
    loc = op->getLoc();
    Operation *before = body->empty() ? nullptr : &body->back();
    Type type = cast.getInput().getType();
    accumulate(cast.getInput(),
               g.getType() == type
                   ? g
                   : CastOp::create(b, loc, type, g, /*is_unsigned=*/false,
                                    /*checked=*/false)
                         .getResult());
    Group group;
    group.scopes = scopesOf.lookup(op);
    for (Operation &emitted : llvm::make_range(
             before ? std::next(Block::iterator(before)) : body->begin(),
             body->end()))
      group.ops.push_back(&emitted);
    groups.push_back(std::move(group));
    return success();
  }
  auto layer = dyn_cast<LayerOpInterface>(op);
  if (!layer || op->getNumResults() != 1)
    return noRule(std::nullopt);
  Value g = adjoints.lookup(op->getResult(0));
  if (!g)
    return success(); // The result reaches the loss only through masks.

  // The precision of this layer's backward ops.
  LayerOpInterface original = originalOf.lookup(op);
  FailureOr<LayerResolution> resolved = resolution->resolve(original);
  if (failed(resolved))
    return failure();
  // A precision is stamped only where it differs from what the backward
  // ops inherit from their blocks (the forward layer's scopes).
  FailureOr<Decision> inherited = inheritedPrecision(original);
  if (failed(inherited))
    return failure();
  auto unlessInherited = [&](PrecisionAttr p) {
    return p == inherited->precision ? PrecisionAttr() : p;
  };
  PrecisionAttr layerStamp = layer.getLayerPrecision();
  bool int8 = resolved->activations.precision.isInt8() ||
              (resolved->weights && resolved->weights->precision.isInt8());
  if (int8)
    layerStamp = PrecisionAttr::get(ctx, PrecisionKind::f32);
  if (layerStamp)
    layerStamp = unlessInherited(layerStamp);

  loc = op->getLoc();
  Operation *before = body->empty() ? nullptr : &body->back();
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    if (!active.contains(operand))
      continue;
    bool weightGradient = operand.getDefiningOp<WeightOp>() != nullptr ||
                          weightDerived.contains(operand);
    stamp = layerStamp;
    if (weightGradient && resolved->weights &&
        operand.getDefiningOp<WeightOp>()) {
      PrecisionAttr read = resolved->weights->precision;
      if (read.getKind() != PrecisionKind::f16 &&
          read.getKind() != PrecisionKind::bf16)
        read = PrecisionAttr::get(ctx, PrecisionKind::f32);
      auto [it, inserted] =
          workingPrecision.try_emplace(operand.getDefiningOp(), read);
      if (!inserted && it->second != read)
        it->second = PrecisionAttr::get(ctx, PrecisionKind::f32);
    }
    if (weightGradient) {
      bool f64 = resolved->weights &&
                 resolved->weights->precision.getKind() == PrecisionKind::f64;
      stamp = unlessInherited(PrecisionAttr::get(
          ctx, f64 ? PrecisionKind::f64 : PrecisionKind::f32));
    }
    FailureOr<Value> contribution = operandAdjoint(op, index, g);
    if (failed(contribution))
      return noRule(index);
    accumulate(operand, *contribution);
  }
  stamp = nullptr;
  Block::iterator start =
      before ? std::next(Block::iterator(before)) : body->begin();
  Group group;
  group.scopes = scopesOf.lookup(op);
  for (Operation &emitted : llvm::make_range(start, body->end()))
    group.ops.push_back(&emitted);
  if (!group.ops.empty())
    groups.push_back(std::move(group));
  return success();
}

BlockOp Differentiator::wrapOne(ArrayRef<Operation *> ops, BlockOp proto) {
  DenseSet<Operation *> inside(ops.begin(), ops.end());
  // Weights used by the group are cloned into it rather than bound.
  b.setInsertionPoint(ops.front());
  llvm::SetVector<Value> inputs, weightInputs;
  for (Operation *op : ops)
    for (OpOperand &use : op->getOpOperands()) {
      Value v = use.get();
      Operation *def = v.getDefiningOp();
      if (def && inside.contains(def))
        continue;
      (isa_and_nonnull<WeightOp>(def) ? weightInputs : inputs).insert(v);
    }
  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *user) { return !inside.contains(user); }))
        outputs.push_back(r);

  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  auto block =
      BlockOp::create(b, proto.getLoc(), resultTypes, inputs.getArrayRef(),
                      proto.getSymNameAttr(), proto.getPrecisionAttr());
  Block *inner = new Block();
  block.getBody().push_back(inner);
  for (Value v : inputs)
    inner->addArgument(v.getType(), v.getLoc());
  for (Operation *op : ops)
    op->moveBefore(inner, inner->end());
  OpBuilder ib = OpBuilder::atBlockEnd(inner);
  YieldOp::create(ib, proto.getLoc(), outputs);
  // A weight defined outside is cloned next to its users instead of bound.
  OpBuilder wb = OpBuilder::atBlockBegin(inner);
  for (Value v : weightInputs) {
    Value copy = wb.clone(*v.getDefiningOp())->getResult(0);
    v.replaceUsesWithIf(copy, [&](OpOperand &use) {
      return block->isProperAncestor(use.getOwner());
    });
  }
  for (auto [v, arg] :
       llvm::zip_equal(inputs.takeVector(), inner->getArguments()))
    v.replaceUsesWithIf(arg, [&](OpOperand &use) {
      return block->isProperAncestor(use.getOwner());
    });
  for (auto [v, r] : llvm::zip_equal(outputs, block.getResults()))
    v.replaceUsesWithIf(r, [&](OpOperand &use) {
      return !block->isProperAncestor(use.getOwner());
    });
  return block;
}

void Differentiator::wrap(const Group &group) {
  if (group.scopes.empty())
    return;
  SmallVector<Operation *> ops(group.ops);
  for (BlockOp scope : llvm::reverse(group.scopes))
    ops = {wrapOne(ops, scope).getOperation()};
}

FailureOr<NetworkOp> Differentiator::run() {
  auto fail = [&]() -> FailureOr<NetworkOp> {
    if (grad)
      grad.erase();
    return failure();
  };
  ArrayRef<Type> resultTypes = forward.getResultTypes();
  if (resultTypes.empty())
    return forward.emitError()
           << "mix-differentiate: network @" << forward.getSymName()
           << " has no results; its last result must be "
              "a loss";
  elementType = getElementTypeOrSelf(resultTypes.back());
  if (!isa<FloatType>(elementType))
    elementType = Float32Type::get(ctx);
  std::string name = (forward.getSymName() + "_grad").str();
  initialName = (forward.getSymName() + "_initial_weights").str();
  for (const std::string &symbol :
       weightsAsInputs ? SmallVector<std::string>{name, initialName}
                       : SmallVector<std::string>{name})
    if (SymbolTable::lookupNearestSymbolFrom(forward,
                                             StringAttr::get(ctx, symbol)))
      return forward.emitError()
             << "mix-differentiate: cannot create @" << symbol
             << ": the module already has a symbol of that name";

  // The gradient network: the forward inputs, then the loss scale.
  auto scalar = RankedTensorType::get({}, Float32Type::get(ctx));
  SmallVector<Type> inputs(forward.getArgumentTypes());
  inputs.push_back(scalar);
  b.setInsertionPointAfter(forward);
  grad = NetworkOp::create(
      b, forward.getLoc(), name, FunctionType::get(ctx, inputs, {}),
      forward.getPrecisionAttr(), ArrayAttr(), ArrayAttr());
  body = new Block();
  grad.getBody().push_back(body);
  for (auto [i, arg] : llvm::enumerate(forward.getArguments()))
    body->addArgument(arg.getType(), arg.getLoc());
  Value lossScale = body->addArgument(scalar, forward.getLoc());

  // 1. The forward, flat.
  IRMapping map;
  for (auto [from, to] :
       llvm::zip(forward.getArguments(), body->getArguments()))
    map.map(from, to);
  b.setInsertionPointToEnd(body);
  ScopeChain scopes;
  SmallVector<Value> results;
  cloneFlat(forward.getBody().front(), scopes, map, results);
  if (tooFewSamples) {
    tooFewSamples.emitError()
        << "mix-differentiate: batch_norm normalizes 1 value per channel: "
           "training uses the statistics of the batch, which need at least 2 "
           "(a batch or an image larger than 1)";
    return fail();
  }
  Value loss = results.back();
  Operation *lossOp = loss.getDefiningOp();
  if (!lossOp || !lossOp->hasTrait<mix::OpTrait::Loss>()) {
    InFlightDiagnostic diag =
        forward.emitError()
        << "mix-differentiate: the last result of network @"
        << forward.getSymName()
        << " is not a loss (mix.mse_loss or mix.cross_entropy_loss)";
    if (lossOp)
      diag.attachNote(originalOf.count(lossOp) ? originalOf[lossOp].getLoc()
                                               : lossOp->getLoc())
          << "it is computed here";
    return fail();
  }

  // 2-3. Activity, then the backward sweep.
  analyzeActivity(loss);
  for (Operation *op : forwardOps)
    if (isa<SliceOp, ReshapeOp, FlattenOp, TransposeOp>(op) &&
        (op->getOperand(0).getDefiningOp<WeightOp>() ||
         weightDerived.contains(op->getOperand(0))))
      weightDerived.insert(op->getResult(0));
  // The forward ops form groups by scope (consecutive ops of one scope).
  SmallVector<Group> forwardGroups;
  for (Operation *op : forwardOps) {
    const ScopeChain &s = scopesOf[op];
    if (isa<WeightOp>(op))
      continue; // Cloned into the groups that use them.
    if (forwardGroups.empty() || forwardGroups.back().scopes != s)
      forwardGroups.push_back({{}, s});
    forwardGroups.back().ops.push_back(op);
  }
  adjoints[loss] = lossScale;
  b.setInsertionPointToEnd(body);
  // A block marked `recompute` is differentiated on a copy of its forward
  // ops, emitted just before its backward: the backward reads the copy's
  // activations, and the forward's die with the forward.
  auto recomputeScope = [&](Operation *op) {
    for (BlockOp scope : scopesOf.lookup(op))
      if (scope->hasAttr(attr::kRecompute))
        return scope;
    return BlockOp();
  };
  ArrayRef<Operation *> ops(forwardOps);
  while (!ops.empty()) {
    Operation *op = ops.back();
    BlockOp scope = recomputeScope(op);
    if (!scope) {
      if (failed(differentiate(op)))
        return fail();
      ops = ops.drop_back();
      continue;
    }
    size_t begin = ops.size() - 1;
    while (begin > 0 && recomputeScope(ops[begin - 1]) == scope)
      --begin;
    SmallVector<Operation *> copies = recompute(ops.drop_front(begin));
    for (Operation *copy : llvm::reverse(copies))
      if (failed(differentiate(copy)))
        return fail();
    ops = ops.take_front(begin);
  }
  // Copies whose values no rule reads (a block's last GEMM, say) go.
  DenseSet<Operation *> unused;
  for (Operation *copy : llvm::reverse(recomputed))
    if (copy->use_empty()) {
      unused.insert(copy);
      copy->erase();
    }
  for (Group &group : groups)
    llvm::erase_if(group.ops, [&](Operation *o) { return unused.contains(o); });
  llvm::erase_if(groups, [](const Group &group) { return group.ops.empty(); });

  // The results: the loss, then the gradient of each weight that has one.
  // (With weights-as-inputs, the initial values of the weights and of the
  // running statistics are collected for @<name>_initial_weights.)
  SmallVector<std::pair<WeightOp, std::string>> initialWeights, runningStats;
  SmallVector<Value> outputs{loss};
  SmallVector<Attribute> resultAttrs{b.getDictionaryAttr(
      {b.getNamedAttr("mix.name", b.getStringAttr("loss"))})};
  unsigned unnamed = 0;
  for (WeightOp w : weights) {
    Value g = adjoints.lookup(w.getResult());
    if (!g)
      continue;
    outputs.push_back(g);
    WeightOp original = originalWeight[w];
    std::string label = original.getRefAttr()
                            ? ("grad." + original.getRefAttr().getValue()).str()
                            : "grad.weight" + std::to_string(unnamed++);
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("mix.name", b.getStringAttr(label))}));
  }
  unsigned numGradients = outputs.size() - 1;
  for (BatchStatistics &stats : batchStatistics) {
    auto name = [&](Value weight, StringRef kind) {
      while (auto arg = dyn_cast<BlockArgument>(weight)) {
        auto block = dyn_cast<BlockOp>(arg.getOwner()->getParentOp());
        if (!block)
          break;
        weight = block.getInputs()[arg.getArgNumber()];
      }
      WeightOp w = weight.getDefiningOp<WeightOp>();
      std::string running =
          w && w.getRefAttr()
              ? w.getRefAttr().getValue().str()
              : "batch_norm" +
                    std::to_string(&stats - batchStatistics.begin()) + "." +
                    (kind == "batch_mean" ? "mean" : "var");
      if (w)
        runningStats.push_back({w, running});
      return kind.str() + "." + running;
    };
    outputs.push_back(stats.mean);
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("mix.name", b.getStringAttr(name(stats.layer.getMean(),
                                                         "batch_mean")))}));
    outputs.push_back(stats.variance);
    resultAttrs.push_back(b.getDictionaryAttr({b.getNamedAttr(
        "mix.name",
        b.getStringAttr(name(stats.layer.getVariance(), "batch_var")))}));
  }
  if (numGradients == 0)
    return forward.emitError() << "mix-differentiate: the loss of network @"
                               << forward.getSymName()
                               << " depends on no floating-point weight",
           fail();
  ReturnOp::create(b, forward.getLoc(), outputs);

  // With weights-as-inputs, each differentiated weight becomes an input
  // named as the weight, in the order of the gradients.
  SmallVector<Attribute> weightArgAttrs;
  if (weightsAsInputs) {
    for (WeightOp w : weights) {
      if (!adjoints.lookup(w.getResult()))
        continue;
      WeightOp original = originalWeight[w];
      std::string label =
          original.getRefAttr()
              ? original.getRefAttr().getValue().str()
              : "weight" + std::to_string(weightArgAttrs.size());
      inputs.push_back(w.getType());
      Value arg = body->addArgument(w.getType(), w.getLoc());
      w.getResult().replaceAllUsesWith(arg);
      SmallVector<NamedAttribute> attrs{
          b.getNamedAttr("mix.name", b.getStringAttr(label))};
      // A weight its layers read at f16/bf16: the training step rounds the
      // working copy to that precision once, from the master.
      PrecisionAttr read = workingPrecision.lookup(w.getOperation());
      if (read && read.getKind() != PrecisionKind::f32)
        attrs.push_back(b.getNamedAttr("mix.working_precision", read));
      weightArgAttrs.push_back(b.getDictionaryAttr(attrs));
      initialWeights.push_back({original, label});
      w.erase();
    }
  }
  SmallVector<Type> outputTypes;
  for (Value v : outputs)
    outputTypes.push_back(v.getType());
  grad.setFunctionType(FunctionType::get(ctx, inputs, outputTypes));
  SmallVector<Attribute> argAttrs(inputs.size(), b.getDictionaryAttr({}));
  if (ArrayAttr fwdArgAttrs = forward.getArgAttrsAttr())
    for (auto [i, a] : llvm::enumerate(fwdArgAttrs))
      argAttrs[i] = a;
  size_t scaleIndex = forward.getNumArguments();
  argAttrs[scaleIndex] = b.getDictionaryAttr(
      {b.getNamedAttr("mix.name", b.getStringAttr("loss_scale"))});
  for (auto [i, attr] : llvm::enumerate(weightArgAttrs))
    argAttrs[scaleIndex + 1 + i] = attr;
  grad.setArgAttrsAttr(b.getArrayAttr(argAttrs));
  grad.setResAttrsAttr(b.getArrayAttr(resultAttrs));

  // 4. Scopes back, then drop the weights no group uses any more.
  for (const Group &group : forwardGroups)
    wrap(group);
  // Consecutive backward groups of one scope chain share its blocks.
  SmallVector<Group> merged;
  for (Group &group : groups) {
    if (!merged.empty() && merged.back().scopes == group.scopes)
      merged.back().ops.append(group.ops.begin(), group.ops.end());
    else
      merged.push_back(std::move(group));
  }
  for (const Group &group : merged)
    wrap(group);
  for (Operation &op : llvm::make_early_inc_range(*body))
    if (isa<WeightOp>(op) && op.use_empty())
      op.erase();

  // 5. With weights-as-inputs, @<name>_initial_weights returns the values
  // the weights inputs start from, then the running statistics.
  if (weightsAsInputs) {
    b.setInsertionPointAfter(grad);
    SmallVector<Type> types;
    SmallVector<Attribute> names;
    for (auto &[w, label] : llvm::concat<std::pair<WeightOp, std::string>>(
             initialWeights, runningStats)) {
      types.push_back(w.getType());
      names.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("mix.name", b.getStringAttr(label))}));
    }
    auto init = NetworkOp::create(
        b, forward.getLoc(), initialName, FunctionType::get(ctx, {}, types),
        forward.getPrecisionAttr(), ArrayAttr(), b.getArrayAttr(names));
    Block *initBody = new Block();
    init.getBody().push_back(initBody);
    b.setInsertionPointToEnd(initBody);
    SmallVector<Value> values;
    for (auto &entry : llvm::concat<std::pair<WeightOp, std::string>>(
             initialWeights, runningStats))
      values.push_back(b.clone(*entry.first)->getResult(0));
    ReturnOp::create(b, forward.getLoc(), values);
  }
  return grad;
}

/// The op computing `v`, looking through block results.
Operation *producer(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto block = dyn_cast_or_null<BlockOp>(def)) {
    auto yield = cast<YieldOp>(block.getBody().front().getTerminator());
    return producer(yield.getValues()[cast<OpResult>(v).getResultNumber()]);
  }
  return def;
}

struct MixDifferentiatePass
    : public mix::impl::MixDifferentiatePassBase<MixDifferentiatePass> {
  using MixDifferentiatePassBase::MixDifferentiatePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<NetworkOp> networks;
    for (NetworkOp n : module.getOps<NetworkOp>())
      if (network.empty() ? endsInLoss(n) : n.getSymName() == network)
        networks.push_back(n);
    if (networks.empty()) {
      mlir::emitError(module.getLoc())
          << "mix-differentiate: "
          << (network.empty() ? std::string("no network ends in a loss "
                                            "(mix.mse_loss or "
                                            "mix.cross_entropy_loss)")
                              : "the module has no network @" + network);
      return signalPassFailure();
    }
    PrecisionAnalysis &analysis = getAnalysis<PrecisionAnalysis>();
    for (NetworkOp n : networks) {
      Differentiator d(n, weightsAsInputs);
      d.setResolution(&analysis);
      if (failed(d.run()))
        return signalPassFailure();
      ++numNetworks;
    }
  }
};

} // namespace

bool mix::endsInLoss(NetworkOp network) {
  auto ret = cast<ReturnOp>(network.getBody().front().getTerminator());
  if (ret.getNumOperands() == 0)
    return false;
  Operation *def = producer(ret.getOperands().back());
  return def && def->hasTrait<mix::OpTrait::Loss>();
}
