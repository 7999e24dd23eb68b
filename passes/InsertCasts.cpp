//===- InsertCasts.cpp - explicit precision conversions -------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/InsertCasts.h"
#include "mlir/IR/Builders.h"
#include "passes/Passes.h"
#include "passes/PrecisionAnalysis.h"
#include "passes/WeightBindings.h"

namespace mix {
#define GEN_PASS_DEF_MIXINSERTCASTSPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

Type mix::getComputeElementType(Attribute attr) {
  auto precision = cast<PrecisionAttr>(attr);
  if (precision.isInt8())
    return Float32Type::get(precision.getContext());
  return precision.getElementType();
}

namespace {
class CastInserter {
public:
  CastInserter(const InsertCastsOptions &options, PrecisionAnalysis &precisions)
      : options(options), precisions(precisions) {}

  LogicalResult run(NetworkOp network) {
    if (failed(processBody(network.getBody().front(), network)))
      return failure();
    // The network keeps its declared signature.
    auto ret = cast<ReturnOp>(network.getBody().front().getTerminator());
    for (auto [operand, type] :
         llvm::zip(ret->getOpOperands(), network.getResultTypes()))
      operand.set(
          castTo(operand.get(), getElementTypeOrSelf(type), ret, network));
    // The cache holds values of this network only; the folding below
    // erases some of them (and another network's ops could reuse their
    // addresses).
    cache.clear();
    return foldWeightCasts(network);
  }

  /// Casts of inline float weights become weights of the target type,
  /// converted now with the same single RNE rounding: the object stores the
  /// narrow data and nothing is converted at run time. That holds wherever
  /// the weight is defined: one bound into a block (`mix.block (%k = %w)`)
  /// is converted inside the block, and the binding goes away when nothing
  /// else uses it. A checked cast rejects at compile time, at the weight,
  /// a value that would overflow and a value that is not finite (as int8
  /// quantization of a weight does).
  LogicalResult foldWeightCasts(NetworkOp network) {
    SmallVector<std::pair<CastOp, WeightOp>> casts;
    network.walk([&](CastOp c) {
      if (WeightOp w = getBoundWeight(c.getInput()))
        casts.push_back({c, w});
    });
    for (auto [c, weight] : casts) {
      auto data = cast<DenseFPElementsAttr>(weight.getValueAttr());
      auto target = cast<RankedTensorType>(c.getType());
      const llvm::fltSemantics &sem =
          cast<FloatType>(target.getElementType()).getFloatSemantics();
      SmallVector<APFloat> converted;
      converted.reserve(data.getNumElements());
      for (auto [i, v] : llvm::enumerate(data.getValues<APFloat>())) {
        APFloat r = v;
        bool lost = false;
        r.convert(sem, APFloat::rmNearestTiesToEven, &lost);
        if (c.getChecked() && (!v.isFinite() || r.isInfinity())) {
          SmallString<16> text;
          v.toString(text);
          return weight.emitOpError()
                 << "value " << text << " at element " << i
                 << (v.isFinite() ? " overflows " : " is not finite, in ")
                 << target.getElementType()
                 << " (a checked conversion of this weight)";
        }
        converted.push_back(r);
      }
      OpBuilder b(c);
      auto folded = WeightOp::create(b, weight.getLoc(), target,
                                     DenseElementsAttr::get(target, converted),
                                     StringAttr());
      c.replaceAllUsesWith(folded.getResult());
      if (auto it = counts.perScope.find(c->getParentOp());
          it != counts.perScope.end() && it->second > 0)
        --it->second;
      --counts.total;
      Value input = c.getInput();
      c.erase();
      dropUnusedBindings(input);
    }
    return success();
  }

  CastCounts counts;

private:
  LogicalResult processBody(Block &body, Operation *scope) {
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (isa<CastOp>(op))
        continue; // inserted by us, or already explicit
      if (auto block = dyn_cast<BlockOp>(op)) {
        Block &inner = block.getBody().front();
        for (auto [arg, input] :
             llvm::zip(inner.getArguments(), block.getInputs()))
          arg.setType(input.getType());
        if (failed(processBody(inner, block)))
          return failure();
        auto yield = cast<YieldOp>(inner.getTerminator());
        for (auto [result, value] :
             llvm::zip(block.getResults(), yield.getValues()))
          result.setType(value.getType());
        continue;
      }
      auto layer = dyn_cast<LayerOpInterface>(op);
      if (!layer)
        continue;
      FailureOr<LayerResolution> r = precisions.resolve(layer);
      if (failed(r))
        return failure();
      SmallVector<Value> weights = layer.getWeightOperands();
      for (OpOperand &operand : op.getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || !isa<FloatType>(type.getElementType()))
          continue; // integer indices and labels
        // where's selected values convert once, to its result's precision.
        PrecisionAttr p = isa<WhereOp>(op) ? r->output.precision
                          : llvm::is_contained(weights, v) && r->weights
                              ? r->weights->precision
                              : r->activations.precision;
        Type elem = getComputeElementType(p);
        // attention's additive mask joins the scores in the accumulator
        // type (f32 for an int8 layer's i32: its scores are f32).
        if (auto attention = dyn_cast<AttentionOp>(op);
            attention && v == attention.getMask()) {
          elem = getComputeElementType(r->accumulator.precision);
          if (!isa<FloatType>(elem))
            elem = Float32Type::get(op.getContext());
        }
        // A recurrent layer's initial states are carried at its state
        // precision (f32 unless overridden).
        if (auto lstm = dyn_cast<LstmOp>(op);
            lstm && (v == lstm.getInitialH() || v == lstm.getInitialC()))
          elem = getComputeElementType(lstm.getStatePrecisionOrDefault());
        if (auto gru = dyn_cast<GruOp>(op); gru && v == gru.getInitialH())
          elem = getComputeElementType(gru.getStatePrecisionOrDefault());
        operand.set(castTo(v, elem, &op, scope));
      }
      Type outElem = getComputeElementType(r->output.precision);
      // Float results take the output precision; an i1 mask (mix.compare)
      // has no precision and keeps its type.
      for (Value result : op.getResults())
        if (auto type = dyn_cast<RankedTensorType>(result.getType());
            type && isa<FloatType>(type.getElementType()))
          result.setType(type.clone(outElem));
    }
    return success();
  }

  /// A value of `v`'s shape with element type `elem`: `v` itself, or a cast
  /// shared by every consumer that needs that type.
  Value castTo(Value v, Type elem, Operation *consumer, Operation *scope) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getElementType() == elem)
      return v;
    Type target = type.clone(elem);
    auto key = std::make_pair(v, target);
    if (auto it = cache.find(key); it != cache.end())
      return it->second;
    OpBuilder builder(consumer->getContext());
    if (Operation *def = v.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
    // The cast reports at the layer that needs the conversion.
    auto castOp = CastOp::create(builder, consumer->getLoc(), target, v);
    if (options.checked && !CastOp::isExactWidening(type, target))
      castOp.setChecked(true);
    cache[key] = castOp.getResult();
    ++counts.total;
    ++counts.perScope[scope];
    return castOp.getResult();
  }

  const InsertCastsOptions &options;
  PrecisionAnalysis &precisions;
  llvm::DenseMap<std::pair<Value, Type>, Value> cache;
};

struct MixInsertCastsPass
    : public mix::impl::MixInsertCastsPassBase<MixInsertCastsPass> {
  using Base::Base;

  void runOnOperation() override {
    InsertCastsOptions opts;
    opts.checked = checked;
    FailureOr<CastCounts> counts =
        insertCasts(getOperation(), opts, &getAnalysis<PrecisionAnalysis>());
    if (failed(counts))
      return signalPassFailure();
    markAnalysesPreserved<PrecisionAnalysis>();
    numCasts += counts->total;
    if (report)
      for (auto [scope, n] : counts->perScope)
        scope->emitRemark()
            << describeOp(scope) << ": " << n << " cast(s) inserted";
  }
};
} // namespace

FailureOr<CastCounts> mix::insertCasts(Operation *root,
                                       const InsertCastsOptions &options,
                                       PrecisionAnalysis *precisions) {
  std::optional<PrecisionAnalysis> own;
  if (!precisions)
    precisions = &own.emplace(root);
  CastInserter inserter(options, *precisions);
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (auto network : block.getOps<NetworkOp>())
        if (failed(inserter.run(network)))
          return failure();
  return std::move(inserter.counts);
}
