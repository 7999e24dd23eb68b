//===- MixInterfaces.cpp - mix op interfaces ------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixInterfaces.h"
#include "dialect/MixOps.h"

using namespace mlir;
using namespace mix;

#include "dialect/MixInterfaces.cpp.inc"

/// Emits an error when `attr` has an int8 axis outside the rank of `value`'s
/// tensor type.
static LogicalResult checkAxis(Operation *op, PrecisionAttr attr,
                               StringRef what, Value value) {
  if (!attr || !attr.isPerAxis() || !value)
    return success();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || attr.getAxis() < type.getRank())
    return success();
  return op->emitOpError() << what << " precision " << attr.str()
                           << " quantizes along axis " << attr.getAxis()
                           << ", but the " << what << " tensor has rank "
                           << type.getRank();
}

LogicalResult mix::verifyLayerPrecisions(Operation *op) {
  auto layer = cast<LayerOpInterface>(op);
  if (PrecisionAttr p = layer.getLayerPrecision()) {
    if (p.getKind() == PrecisionKind::i32)
      return op->emitOpError()
             << "layer precision cannot be i32 (i32 is only an accumulator "
                "precision)";
  }
  for (PrecisionProperty prop : kAllProperties) {
    PrecisionAttr p = layer.getPropertyOverride(prop);
    if (!p)
      continue;
    if (prop == PrecisionProperty::weights && !layer.hasWeights())
      return op->emitOpError()
             << "has no weights, but sets a weights precision (" << p.str()
             << ")";
    if (prop == PrecisionProperty::accumulator) {
      if (p.isInt8())
        return op->emitOpError()
               << "accumulator precision cannot be int8 (int8 products "
                  "accumulate in i32)";
      continue;
    }
    if (p.getKind() == PrecisionKind::i32)
      return op->emitOpError()
             << stringifyPrecisionProperty(prop)
             << " precision cannot be i32 (i32 is only an accumulator "
                "precision)";
  }

  // Axes of explicit int8 precisions must fit the tensors they quantize: the
  // first weight operand for weights, the first operand for activations.
  SmallVector<Value> weights = layer.getWeightOperands();
  Value firstWeight = weights.empty() ? Value() : weights.front();
  Value input = op->getNumOperands() ? op->getOperand(0) : Value();
  PrecisionAttr layerP = layer.getLayerPrecision();
  if (failed(checkAxis(op,
                       layer.getPropertyOverride(PrecisionProperty::weights),
                       "weights", firstWeight)) ||
      failed(checkAxis(
          op, layer.getPropertyOverride(PrecisionProperty::activations),
          "activations", input)) ||
      failed(checkAxis(op, layerP, "weights", firstWeight)) ||
      failed(checkAxis(op, layerP, "activations", input)))
    return failure();
  return success();
}
