//===- Resolve.cpp - hierarchical precision resolution --------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/Resolve.h"
#include "passes/PrecisionAnalysis.h"

using namespace mlir;
using namespace mix;

//===----------------------------------------------------------------------===//
// Decisions
//===----------------------------------------------------------------------===//

std::string mix::describeOp(Operation *op) {
  if (auto network = dyn_cast<NetworkOp>(op))
    return "network @" + network.getSymName().str();
  if (auto block = dyn_cast<BlockOp>(op))
    return "block " + block.getDisplayName();
  return "'" + op->getName().getStringRef().str() + "'";
}

/// "<kind>#<i>": i counts the ops with the same name before `op` in its
/// block.
static std::string indexedName(Operation *op, StringRef kind) {
  unsigned index = 0;
  for (Operation &other : *op->getBlock()) {
    if (&other == op)
      break;
    if (other.getName() == op->getName())
      ++index;
  }
  return (kind + "#" + Twine(index)).str();
}

std::string mix::getLayerPath(Operation *layer) {
  SmallVector<std::string> segments;
  StringRef kind = layer->getName().getStringRef();
  kind.consume_front("mix.");
  segments.push_back(indexedName(layer, kind));
  for (Operation *p = layer->getParentOp(); p; p = p->getParentOp()) {
    if (auto block = dyn_cast<BlockOp>(p)) {
      segments.push_back(block.getSymName() ? block.getSymName()->str()
                                            : indexedName(block, "block"));
    } else if (auto network = dyn_cast<NetworkOp>(p)) {
      segments.push_back(network.getSymName().str());
      break;
    }
  }
  std::string path;
  for (const std::string &s : llvm::reverse(segments)) {
    if (!path.empty())
      path += '/';
    path += s;
  }
  return path;
}

std::string Decision::describe() const {
  switch (source) {
  case PrecisionSource::network:
  case PrecisionSource::block:
    return origin ? describeOp(origin) : toAttr().describeSource();
  case PrecisionSource::layer:
  case PrecisionSource::property:
  case PrecisionSource::derived:
    return stringifyPrecisionSource(source).str();
  }
  llvm_unreachable("unknown precision source");
}

DecisionAttr Decision::toAttr() const {
  StringAttr name;
  if (source == PrecisionSource::network || source == PrecisionSource::block) {
    if (auto network = dyn_cast_or_null<NetworkOp>(origin))
      name = network.getSymNameAttr();
    else if (auto block = dyn_cast_or_null<BlockOp>(origin))
      name = block.getSymNameAttr();
  }
  return DecisionAttr::get(precision.getContext(), precision, source, name);
}

const Decision *LayerResolution::get(PrecisionProperty property) const {
  switch (property) {
  case PrecisionProperty::weights:
    return weights ? &*weights : nullptr;
  case PrecisionProperty::activations:
    return &activations;
  case PrecisionProperty::accumulator:
    return &accumulator;
  case PrecisionProperty::output:
    return &output;
  }
  llvm_unreachable("unknown precision property");
}

ResolvedAttr LayerResolution::toAttr(MLIRContext *context) const {
  return ResolvedAttr::get(
      context, weights ? weights->toAttr() : DecisionAttr(),
      activations.toAttr(), accumulator.toAttr(), output.toAttr());
}

//===----------------------------------------------------------------------===//
// Inheritance
//===----------------------------------------------------------------------===//

FailureOr<Decision> mix::inheritedPrecision(Operation *op) {
  // The innermost block with a precision decides, but only inside a network:
  // a block outside any network has no well-defined default.
  std::optional<Decision> decision;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto block = dyn_cast<BlockOp>(parent)) {
      if (PrecisionAttr p = block.getPrecisionAttr(); p && !decision)
        decision = Decision{p, PrecisionSource::block, block};
      continue;
    }
    if (auto network = dyn_cast<NetworkOp>(parent)) {
      if (!decision)
        decision =
            Decision{network.getPrecision(), PrecisionSource::network, network};
      return *decision;
    }
  }
  return op->emitOpError()
         << "is not inside a 'mix.network', so it has no default precision";
}

FailureOr<Decision> mix::effectivePrecision(Operation *op) {
  if (auto network = dyn_cast<NetworkOp>(op))
    return Decision{network.getPrecision(), PrecisionSource::network, network};
  if (auto block = dyn_cast<BlockOp>(op))
    if (PrecisionAttr p = block.getPrecisionAttr())
      return Decision{p, PrecisionSource::block, block};
  if (auto layer = dyn_cast<LayerOpInterface>(op))
    if (PrecisionAttr p = layer.getLayerPrecision())
      return Decision{p, PrecisionSource::layer, op};
  return inheritedPrecision(op);
}

PrecisionAttr mix::defaultAccumulator(PrecisionAttr weights,
                                      PrecisionAttr activations) {
  MLIRContext *ctx = activations.getContext();
  bool intWeights = !weights || weights.isInt8();
  if (activations.isInt8() && intWeights)
    return PrecisionAttr::get(ctx, PrecisionKind::i32);
  auto isF64 = [](PrecisionAttr p) {
    return p && p.getKind() == PrecisionKind::f64;
  };
  if (isF64(weights) || isF64(activations))
    return PrecisionAttr::get(ctx, PrecisionKind::f64);
  return PrecisionAttr::get(ctx, PrecisionKind::f32);
}

PrecisionAttr mix::defaultOutput(PrecisionAttr activations) {
  if (activations.isInt8())
    return PrecisionAttr::get(activations.getContext(), PrecisionKind::f32);
  return activations;
}

/// Checks that an int8 per-axis precision decided above the layer fits the
/// tensor it applies to.
static LogicalResult checkInheritedAxis(Operation *op, const Decision &d,
                                        StringRef what, Value value) {
  if (!d.precision.isInt8() || !d.precision.isPerAxis() || !value ||
      d.origin == op)
    return success();
  int64_t rank = cast<ShapedType>(value.getType()).getRank();
  if (d.precision.getAxis() < rank)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "inherits " << what << " precision "
                            << d.precision.str() << " quantized along axis "
                            << d.precision.getAxis() << ", but its " << what
                            << " tensor has rank " << rank;
  if (d.origin)
    diag.attachNote(d.origin->getLoc())
        << "precision inherited from " << describeOp(d.origin);
  return diag;
}

FailureOr<LayerResolution> mix::resolveLayer(LayerOpInterface layer) {
  FailureOr<Decision> base = effectivePrecision(layer.getOperation());
  if (failed(base))
    return failure();
  return resolveLayer(layer, *base);
}

FailureOr<LayerResolution> mix::resolveLayer(LayerOpInterface layer,
                                             const Decision &base) {
  Operation *op = layer.getOperation();
  LayerResolution r;
  r.layer = base;
  auto fromOverride = [&](PrecisionProperty prop,
                          const Decision &fallback) -> Decision {
    if (PrecisionAttr p = layer.getPropertyOverride(prop))
      return Decision{p, PrecisionSource::property, op};
    return fallback;
  };

  if (layer.hasWeights())
    r.weights = fromOverride(PrecisionProperty::weights, base);
  r.activations = fromOverride(PrecisionProperty::activations, base);

  Decision derivedAcc{
      defaultAccumulator(r.weights ? r.weights->precision : PrecisionAttr(),
                         r.activations.precision),
      PrecisionSource::derived, r.activations.origin};
  r.accumulator = fromOverride(PrecisionProperty::accumulator, derivedAcc);

  // The output inherits along with the activations; it is derived when the
  // activations are int8 (the output is then f32) or set by an override.
  Decision outputDefault = r.activations;
  if (r.activations.precision.isInt8() ||
      r.activations.source == PrecisionSource::property)
    outputDefault = Decision{defaultOutput(r.activations.precision),
                             PrecisionSource::derived, r.activations.origin};
  r.output = fromOverride(PrecisionProperty::output, outputDefault);

  SmallVector<Value> weights = layer.getWeightOperands();
  if (r.weights && !weights.empty() &&
      failed(checkInheritedAxis(op, *r.weights, "weights", weights.front())))
    return failure();
  if (op->getNumOperands() &&
      failed(checkInheritedAxis(op, r.activations, "activations",
                                op->getOperand(0))))
    return failure();
  return r;
}

LogicalResult mix::resolvePrecisions(Operation *root, ResolveCounts *counts) {
  return PrecisionAnalysis(root).record(counts);
}
