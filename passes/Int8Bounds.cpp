//===- Int8Bounds.cpp - proving int8 accumulation cannot overflow ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/Int8Bounds.h"
#include "passes/Passes.h"

namespace mix {
#define GEN_PASS_DEF_MIXCHECKINT8ACCUMULATIONPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

int64_t mix::maxCenteredMagnitude(PrecisionAttr p) {
  return p.getScheme() == QuantScheme::symmetric ? 127 : 255;
}

std::optional<int64_t> mix::getContractionLength(Operation *op) {
  auto dimOf = [](Value v, int64_t i) {
    auto type = cast<ShapedType>(v.getType());
    return type.getDimSize(i < 0 ? type.getRank() + i : i);
  };
  if (auto dense = dyn_cast<DenseOp>(op))
    return dimOf(dense.getWeight(), 0);
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return dimOf(matmul.getLhs(), -1);
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return dimOf(conv.getWeight(), 1) * dimOf(conv.getWeight(), 2) *
           dimOf(conv.getWeight(), 3);
  if (auto attention = dyn_cast<AttentionOp>(op))
    return dimOf(attention.getInput(), -1);
  return std::nullopt;
}

std::optional<Int8AccumulationBound>
mix::getInt8AccumulationBound(LayerOpInterface layer,
                              const LayerResolution &r) {
  PrecisionAttr a = r.activations.precision;
  // matmul multiplies two activations; weighted layers activations x weights.
  PrecisionAttr b = r.weights ? r.weights->precision : a;
  if (!a.isInt8() || !b.isInt8())
    return std::nullopt;
  std::optional<int64_t> k = getContractionLength(layer);
  if (!k)
    return std::nullopt;
  Int8AccumulationBound bound;
  bound.k = *k;
  bound.maxActivation = maxCenteredMagnitude(a);
  bound.maxWeight = maxCenteredMagnitude(b);
  int64_t perProduct = bound.maxActivation * bound.maxWeight;
  bound.worstCase = bound.k * perProduct; // k < 2^31 (tensor dims), exact
  bound.maxSafeK = INT32_MAX / perProduct;
  return bound;
}

LogicalResult mix::checkInt8Accumulation(Operation *root, bool splitK) {
  bool ok = true;
  WalkResult walk = root->walk([&](LayerOpInterface layer) {
    FailureOr<LayerResolution> r = resolveLayer(layer);
    if (failed(r))
      return WalkResult::interrupt();
    std::optional<Int8AccumulationBound> bound =
        getInt8AccumulationBound(layer, *r);
    if (!bound || bound->fits())
      return WalkResult::advance();
    if (splitK && bound->maxSafeK >= 1 &&
        isa<DenseOp, MatmulOp, Conv2DOp>(layer.getOperation())) {
      auto conv = dyn_cast<Conv2DOp>(layer.getOperation());
      // conv2d splits whole input channels: one channel's window must fit.
      int64_t window = 1;
      if (conv) {
        auto w = cast<ShapedType>(conv.getWeight().getType());
        window = w.getDimSize(2) * w.getDimSize(3);
      }
      if ((!conv || conv.getGroups() == 1) && bound->maxSafeK >= window) {
        layer->setAttr(kKChunkAttrName,
                       IntegerAttr::get(IntegerType::get(root->getContext(), 64),
                                        bound->maxSafeK));
        return WalkResult::advance();
      }
    }
    ok = false;
    InFlightDiagnostic diag =
        layer->emitOpError()
        << "int8 accumulation can overflow int32: K = " << bound->k
        << " products of at most " << bound->maxActivation << " x "
        << bound->maxWeight << " sum to " << bound->worstCase
        << " > 2147483647; at most " << bound->maxSafeK
        << " products per i32 sum are safe (split K or use a float "
           "precision)";
    if (r->activations.origin && r->activations.origin != layer.getOperation())
      diag.attachNote(r->activations.origin->getLoc())
          << "int8 inherited from " << describeOp(r->activations.origin);
    return WalkResult::advance();
  });
  return success(!walk.wasInterrupted() && ok);
}

namespace {
struct MixCheckInt8AccumulationPass
    : public mix::impl::MixCheckInt8AccumulationPassBase<
          MixCheckInt8AccumulationPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(checkInt8Accumulation(getOperation(), splitK)))
      signalPassFailure();
  }
};
} // namespace
