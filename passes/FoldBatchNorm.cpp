//===- FoldBatchNorm.cpp - mix-fold-batch-norm ----------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Folds an inference batch_norm into the float conv2d that feeds it, at
// compile time:
//
//   s[f]  = scale[f] / sqrt(variance[f] + epsilon)
//   w'[f] = w[f] * s[f]                     (every weight of output channel f)
//   b'[f] = (b[f] - mean[f]) * s[f] + bias[f]         (b = 0 without a bias)
//
// computed in f64 and rounded once (to nearest, ties to even) to the conv's
// resolved weights precision; the conv then computes as before with w' and
// b' and the batch_norm is gone: one pass over the activations fewer, and
// no per-element multiply-add in the epilogue.
//
// Folding moves the normalization into the conv's arithmetic, so it is done
// only where that loses nothing the resolved precisions promised: see
// FoldBatchNorm.h for the conditions.
//
//===----------------------------------------------------------------------===//

#include "passes/FoldBatchNorm.h"

#include "dialect/MixAttrNames.h"
#include "dialect/MixOps.h"
#include "passes/Passes.h"
#include "passes/WeightBindings.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <optional>
#include <vector>

namespace mix {
#define GEN_PASS_DEF_MIXFOLDBATCHNORMPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {

/// The values of a weight bound to data (`mix.weight dense<...>`, directly
/// or through block bindings) in f64; nothing for an unbound external
/// weight or anything else.
std::optional<std::vector<double>> weightValues(Value value) {
  WeightOp weight = getBoundWeight(value);
  if (!weight)
    return std::nullopt;
  auto data = cast<DenseFPElementsAttr>(weight.getValueAttr());
  std::vector<double> out;
  out.reserve(data.getNumElements());
  for (APFloat v : data.getValues<APFloat>()) {
    bool lost = false;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    out.push_back(v.convertToDouble());
  }
  return out;
}

/// `values` rounded once to `precision` (to nearest, ties to even), as a
/// dense attribute of `type` (whose element type is at least as wide, so
/// the second conversion is exact); null if a value is not finite there.
DenseElementsAttr roundTo(ArrayRef<double> values, ShapedType type,
                          FloatType precision) {
  auto elem = cast<FloatType>(type.getElementType());
  std::vector<APFloat> rounded;
  rounded.reserve(values.size());
  for (double v : values) {
    APFloat f(v);
    bool lost = false;
    f.convert(precision.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    if (!f.isFinite())
      return {};
    f.convert(elem.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    rounded.push_back(f);
  }
  return DenseElementsAttr::get(RankedTensorType::get(type.getShape(), elem),
                                rounded);
}

/// The width of a float precision, 0 for int8 and i32.
unsigned floatWidth(DecisionAttr decision) {
  PrecisionAttr p = decision ? decision.getPrecision() : PrecisionAttr();
  return p && p.isFloat() ? p.getBitWidth() : 0;
}

/// The conv2d whose result `v` is, directly or through block boundaries (a
/// block argument bound to a value, a block result its body yields: an
/// imported model puts each module, so a conv2d and its batch norm, in a
/// block of its own); null if none. `otherUses` tells whether a value on the
/// way, the conv2d's result included, has a reader besides the next step.
Conv2DOp producingConv(Value v, bool &otherUses) {
  otherUses = false;
  while (true) {
    if (!v.hasOneUse())
      otherUses = true;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto block = dyn_cast<BlockOp>(arg.getOwner()->getParentOp());
      if (!block)
        return {};
      v = block.getInputs()[arg.getArgNumber()];
      continue;
    }
    if (auto block = v.getDefiningOp<BlockOp>()) {
      Operation *yield = block.getBody().front().getTerminator();
      v = yield->getOperand(cast<OpResult>(v).getResultNumber());
      continue;
    }
    return v.getDefiningOp<Conv2DOp>();
  }
}

} // namespace

std::optional<std::string> mix::whyNotFoldable(BatchNormOp norm) {
  bool otherUses = false;
  Conv2DOp conv = producingConv(norm.getInput(), otherUses);
  if (!conv)
    return "its input is not a conv2d";
  if (otherUses)
    return "the conv2d's result has other uses";
  if (conv.getResult().getType() != norm.getResult().getType())
    return "the conv2d's result type differs from the batch_norm's";
  ResolvedAttr convRes = conv.getResolvedAttr();
  ResolvedAttr normRes = norm.getResolvedAttr();
  if (!convRes || !normRes)
    return "the precisions are not resolved";
  if (!floatWidth(convRes.getWeights()) ||
      !floatWidth(convRes.getAccumulator()))
    return "the conv2d is not a float layer";
  if (floatWidth(convRes.getAccumulator()) <
          floatWidth(normRes.getAccumulator()) ||
      floatWidth(convRes.getAccumulator()) <
          floatWidth(normRes.getActivations()) ||
      floatWidth(convRes.getOutput()) < floatWidth(normRes.getOutput()))
    return "the batch_norm computes or stores at a wider precision than the "
           "conv2d";
  if (!weightValues(conv.getWeight()) ||
      (conv.getBias() && !weightValues(conv.getBias())) ||
      !weightValues(norm.getScale()) || !weightValues(norm.getBias()) ||
      !weightValues(norm.getMean()) || !weightValues(norm.getVariance()))
    return "a weight is not bound to data";
  return std::nullopt;
}

FailureOr<FoldedBatchNorm> mix::foldBatchNorm(BatchNormOp norm) {
  if (whyNotFoldable(norm))
    return failure();
  bool otherUses = false;
  Conv2DOp conv = producingConv(norm.getInput(), otherUses);
  std::vector<double> w = *weightValues(conv.getWeight());
  std::vector<double> scale = *weightValues(norm.getScale());
  std::vector<double> shift = *weightValues(norm.getBias());
  std::vector<double> mean = *weightValues(norm.getMean());
  std::vector<double> variance = *weightValues(norm.getVariance());
  size_t channels = scale.size();
  std::vector<double> b(channels, 0.0);
  if (conv.getBias())
    b = *weightValues(conv.getBias());
  if (channels == 0 || w.size() % channels != 0 || b.size() != channels)
    return failure();
  size_t perChannel = w.size() / channels;
  double epsilon = norm.getEpsilon().convertToDouble();
  std::vector<double> newBias(channels);
  for (size_t f = 0; f < channels; ++f) {
    double s = scale[f] / std::sqrt(variance[f] + epsilon);
    // A negative variance (NaN) or a zero one (inf) stays a batch_norm: the
    // compiled code's checks report what it produces.
    if (!std::isfinite(s))
      return failure();
    for (size_t i = 0; i < perChannel; ++i)
      w[f * perChannel + i] *= s;
    newBias[f] = (b[f] - mean[f]) * s + shift[f];
  }

  // The weights rounded to the conv's weights precision, kept in their
  // declared type (mix-insert-casts then converts them exactly); the bias in
  // the declared type of the conv's bias (or the batch_norm's), converted by
  // mix-insert-casts as any bias is.
  ResolvedAttr res = conv.getResolvedAttr();
  auto weightPrecision =
      cast<FloatType>(res.getWeights().getPrecision().getElementType());
  auto weightType = cast<ShapedType>(conv.getWeight().getType());
  if (weightPrecision.getWidth() >
      cast<FloatType>(weightType.getElementType()).getWidth())
    weightPrecision = cast<FloatType>(weightType.getElementType());
  DenseElementsAttr newWeight = roundTo(w, weightType, weightPrecision);
  Value biasSource = conv.getBias() ? conv.getBias() : norm.getBias();
  auto biasType = cast<ShapedType>(biasSource.getType());
  DenseElementsAttr newBiasAttr =
      roundTo(newBias, biasType, cast<FloatType>(biasType.getElementType()));
  if (!newWeight || !newBiasAttr)
    return failure();

  OpBuilder b2(conv);
  Value weight = WeightOp::create(b2, conv.getWeight().getLoc(),
                                  newWeight.getType(), newWeight, StringAttr());
  Value bias = WeightOp::create(b2, biasSource.getLoc(), newBiasAttr.getType(),
                                newBiasAttr, StringAttr());
  Value oldWeight = conv.getWeight();
  Value oldBias = conv.getBias();
  conv.getWeightMutable().assign(weight);
  if (oldBias)
    conv.getBiasMutable().assign(bias);
  else
    conv.getBiasMutable().append(bias);
  conv->setAttr(attr::kFoldedBatchNorm, norm.getLoc());
  FoldedBatchNorm folded{norm.getLoc(), conv.getLoc()};
  SmallVector<Value, 6> unused = {norm.getScale(), norm.getBias(),
                                  norm.getMean(), norm.getVariance(),
                                  oldWeight};
  if (oldBias)
    unused.push_back(oldBias);
  // The conv2d's result, or the block argument it reaches the batch_norm's
  // block by.
  norm.getResult().replaceAllUsesWith(norm.getInput());
  norm.erase();
  // The weights nothing uses any more, and their bindings.
  dropUnusedBindings(unused);
  return folded;
}

namespace {

struct MixFoldBatchNormPass
    : mix::impl::MixFoldBatchNormPassBase<MixFoldBatchNormPass> {
  using MixFoldBatchNormPassBase::MixFoldBatchNormPassBase;

  void runOnOperation() override {
    std::vector<BatchNormOp> norms;
    getOperation()->walk([&](BatchNormOp norm) { norms.push_back(norm); });
    for (BatchNormOp norm : norms) {
      Location loc = norm.getLoc();
      std::optional<std::string> why = whyNotFoldable(norm);
      if (!why) {
        bool otherUses = false;
        Location convLoc = producingConv(norm.getInput(), otherUses).getLoc();
        if (succeeded(foldBatchNorm(norm))) {
          if (report)
            emitRemark(loc)
                << "batch_norm folded into the conv2d at " << convLoc;
          continue;
        }
        why = "a folded weight or bias would not be finite (variance + "
              "epsilon <= 0, or beyond the range of the weights precision)";
      }
      bool otherUses = false;
      if (report && producingConv(norm.getInput(), otherUses))
        emitRemark(loc) << "batch_norm not folded: " << *why;
    }
  }
};

} // namespace
