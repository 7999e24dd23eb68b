//===- PrecisionAnalysis.cpp - precision resolution, computed once --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/PrecisionAnalysis.h"

using namespace mlir;
using namespace mix;

FailureOr<Decision> PrecisionAnalysis::scopeDecision(Operation *scope,
                                                     Operation *layer) {
  // Walk up to the first scope whose decision is known (or the network),
  // then fill the cache on the way back down, so that each scope is visited
  // once however many layers it holds.
  SmallVector<Operation *> chain;
  std::optional<Decision> known;
  for (Operation *op = scope; op; op = op->getParentOp()) {
    if (auto it = scopes.find(op); it != scopes.end()) {
      known = it->second;
      break;
    }
    if (auto network = dyn_cast<NetworkOp>(op)) {
      known =
          Decision{network.getPrecision(), PrecisionSource::network, network};
      scopes[op] = *known;
      break;
    }
    if (isa<BlockOp>(op))
      chain.push_back(op);
  }
  if (!known) // Not inside a network: resolveLayer says so.
    return inheritedPrecision(layer);
  for (Operation *op : llvm::reverse(chain)) {
    if (PrecisionAttr p = cast<BlockOp>(op).getPrecisionAttr())
      known = Decision{p, PrecisionSource::block, op};
    scopes[op] = *known;
  }
  return *known;
}

FailureOr<LayerResolution> PrecisionAnalysis::resolve(LayerOpInterface layer) {
  Operation *op = layer.getOperation();
  if (auto it = layers.find(op); it != layers.end())
    return it->second;
  FailureOr<Decision> base =
      layer.getLayerPrecision()
          ? FailureOr<Decision>(
                Decision{layer.getLayerPrecision(), PrecisionSource::layer, op})
          : scopeDecision(op->getParentOp(), op);
  if (failed(base))
    return failure();
  FailureOr<LayerResolution> r = resolveLayer(layer, *base);
  if (failed(r))
    return failure();
  ++numComputed;
  layers[op] = *r;
  return r;
}

LogicalResult PrecisionAnalysis::record(ResolveCounts *counts) {
  MLIRContext *ctx = root->getContext();
  WalkResult result = root->walk([&](LayerOpInterface layer) {
    FailureOr<LayerResolution> r = resolve(layer);
    if (failed(r))
      return WalkResult::interrupt();
    ResolvedAttr attr = r->toAttr(ctx);
    if (layer.getResolution() != attr)
      layer.setResolution(attr);
    if (counts) {
      ++counts->layers;
      for (PrecisionProperty prop : kAllProperties)
        if (const Decision *d = r->get(prop))
          ++counts->bySource[static_cast<unsigned>(d->source)];
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
