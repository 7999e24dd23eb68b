//===- MixFolds.cpp - folds of mix operations -----------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixOps.h"

using namespace mlir;
using namespace mix;

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

bool CastOp::isExactWidening(Type from, Type to) {
  auto elem = [](Type t) { return getElementTypeOrSelf(t); };
  Type f = elem(from), t = elem(to);
  if (f == t)
    return true;
  auto ff = dyn_cast<FloatType>(f), tf = dyn_cast<FloatType>(t);
  if (!ff || !tf)
    return false;
  // f16 -> f32/f64, f32 -> f64 (and future fp8 -> wider): every finite value
  // of the source is a normal number of the target. bf16 shares f32's
  // exponent range, so its subnormals stay subnormal in f32, but exact.
  if (llvm::APFloat::isRepresentableAsNormalIn(ff.getFloatSemantics(),
                                               tf.getFloatSemantics()))
    return true;
  return ff.isBF16() && (tf.isF32() || tf.isF64());
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  Value input = getInput();
  if (input.getType() == getType())
    return input;
  auto inner = input.getDefiningOp<CastOp>();
  if (!inner || !isExactWidening(inner.getInput().getType(), input.getType()))
    return {};
  // Rounding x once equals rounding its exact widening: skip the widening.
  Value source = inner.getInput();
  if (source.getType() == getType())
    return source;
  getInputMutable().assign(source);
  return getResult();
}
