//===- MixFolds.cpp - folds of mix operations -----------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixOps.h"

#include "mlir/IR/PatternMatch.h"

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
  auto tf = dyn_cast<FloatType>(t);
  if (!tf)
    return false;
  // Integers: exact when the target's significand holds every value (i1 and
  // i8, signed or read unsigned, need 8 bits; i32 needs 32).
  if (auto fi = dyn_cast<IntegerType>(f))
    return fi.getWidth() <= 8 ||
           (fi.getWidth() <= 32 && tf.getFPMantissaWidth() > 32);
  auto ff = dyn_cast<FloatType>(f);
  if (!ff)
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
  // An inexact inner step (i64 -> f32, i32 -> f16, ...) is never skipped.
  Value source = inner.getInput();
  if (source.getType() == getType())
    return source;
  getInputMutable().assign(source);
  setIsUnsigned(inner.getIsUnsigned());
  return getResult();
}

/// Converts the integer `value` (of `width` bits, read unsigned when asked;
/// an i1 is 0 or 1) to `semantics` with one RNE rounding. Sets `overflow`
/// when the result is infinite.
static APFloat convertInteger(const APInt &value, bool isUnsigned,
                              const llvm::fltSemantics &semantics,
                              bool &overflow) {
  APFloat result(semantics);
  bool isSigned = !isUnsigned && value.getBitWidth() > 1;
  (void)result.convertFromAPInt(value, isSigned, APFloat::rmNearestTiesToEven);
  overflow |= result.isInfinity();
  return result;
}

LogicalResult CastOp::canonicalize(CastOp op, PatternRewriter &rewriter) {
  // A cast of an inline integer weight: an inline float weight.
  auto weight = op.getInput().getDefiningOp<WeightOp>();
  auto ints =
      weight ? dyn_cast_or_null<DenseIntElementsAttr>(weight.getValueAttr())
             : DenseIntElementsAttr();
  if (!ints)
    return rewriter.notifyMatchFailure(op, "not a cast of an integer weight");
  auto type = cast<RankedTensorType>(op.getType());
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  bool overflow = false;
  SmallVector<APFloat> values;
  values.reserve(ints.getNumElements());
  for (const APInt &v : ints.getValues<APInt>())
    values.push_back(
        convertInteger(v, op.getIsUnsigned(), semantics, overflow));
  // A checked cast that overflows reports it when it runs.
  if (overflow && op.getChecked())
    return rewriter.notifyMatchFailure(op, "checked cast overflows");
  rewriter.replaceOpWithNewOp<WeightOp>(
      op, type, DenseElementsAttr::get(type, values), StringAttr());
  return success();
}
