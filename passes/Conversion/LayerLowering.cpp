//===- LayerLowering.cpp - what the layer lowerings share -----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "passes/Resolve.h"

using namespace mlir;

namespace mix::lowering {

FailureOr<Type> accumulatorType(LayerOpInterface layer) {
  PrecisionAttr acc;
  if (ResolvedAttr resolved = layer.getResolution()) {
    acc = resolved.getAccumulator().getPrecision();
  } else {
    FailureOr<LayerResolution> r = resolveLayer(layer);
    if (failed(r))
      return failure();
    acc = r->accumulator.precision;
  }
  if (!acc.isFloat())
    return layer->emitOpError()
           << "accumulates in " << acc.str()
           << "; integer layers must be lowered by mix-quantize first";
  return acc.getElementType();
}

Value buildInit(OpBuilder &b, Location loc, const LayerTypes &types) {
  return zeroFilled(b, loc, types.result.getShape(), types.acc);
}

AffineMap channelMap(Value operand, ShapedType result, int64_t channelDim) {
  MLIRContext *ctx = operand.getContext();
  int64_t rank = result.getRank();
  auto type = cast<ShapedType>(operand.getType());
  if (type.getRank() == 0)
    return AffineMap::get(rank, 0, {}, ctx);
  bool broadcast =
      type.getDimSize(0) == 1 && result.getDimSize(channelDim) != 1;
  return AffineMap::get(rank, 0,
                        {broadcast ? getAffineConstantExpr(0, ctx)
                                   : getAffineDimExpr(channelDim, ctx)},
                        ctx);
}

Value addBias(OpBuilder &b, Location loc, const LayerTypes &types, Value acc,
              const BiasEpilogue &e) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = types.result.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs = {acc};
  llvm::append_range(inputs, e.extras);
  SmallVector<AffineMap> maps = {e.accMap ? e.accMap : id};
  llvm::append_range(maps, e.extraMaps);
  size_t biasIndex = inputs.size();
  if (e.bias) {
    inputs.push_back(e.bias);
    maps.push_back(channelMap(e.bias, types.result, e.channelDim));
  }
  maps.push_back(id);
  Type outElem = types.out();
  return generic(
      b, loc, inputs, types.result.getShape(), outElem, std::nullopt, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = e.pre ? e.pre(nb, l, a.take_front(biasIndex)) : a[0];
        if (e.bias)
          v = arith::AddFOp::create(
              nb, l, v, convertScalar(nb, l, a[biasIndex], e.biasType));
        return convertScalar(nb, l, v, outElem);
      });
}

Value divideByCount(OpBuilder &b, Location loc, Value sum, double count,
                    ShapedType type) {
  return elementwise(
      b, loc, sum, type, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value n = arith::ConstantOp::create(
            nb, l, nb.getFloatAttr(a[0].getType(), count));
        return convertScalar(nb, l, arith::DivFOp::create(nb, l, a[0], n),
                             type.getElementType());
      });
}

} // namespace mix::lowering
