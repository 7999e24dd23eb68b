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
  // The longer of the input GEMM (K = I) and the recurrent ones (K = H).
  if (auto lstm = dyn_cast<LstmOp>(op))
    return std::max(dimOf(lstm.getInput(), -1), dimOf(lstm.getR(), -1));
  if (auto gru = dyn_cast<GruOp>(op))
    return std::max(dimOf(gru.getInput(), -1), dimOf(gru.getR(), -1));
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

LogicalResult mix::checkInt8Accumulation(Operation *root, bool splitK,
                                         PrecisionAnalysis *precisions) {
  std::optional<PrecisionAnalysis> own;
  if (!precisions)
    precisions = &own.emplace(root);
  bool ok = true;
  WalkResult walk = root->walk([&](LayerOpInterface layer) {
    FailureOr<LayerResolution> r = precisions->resolve(layer);
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
        layer->setAttr(
            kKChunkAttrName,
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

//===----------------------------------------------------------------------===//
// The integer ops after mix-quantize
//===----------------------------------------------------------------------===//

namespace {
/// The values of a constant integer tensor (a mix.weight with inline data
/// or an arith.constant), looking through nothing else.
std::optional<SmallVector<int64_t>> constantInts(Value v) {
  Attribute attr;
  if (auto w = v.getDefiningOp<WeightOp>())
    attr = w.getValueAttr();
  else if (Operation *def = v.getDefiningOp())
    if (def->hasTrait<mlir::OpTrait::ConstantLike>())
      attr = def->getAttr("value");
  auto ints = dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!ints)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &x : ints.getValues<APInt>())
    values.push_back(x.getSExtValue());
  return values;
}

/// The largest |q - z| an int8 operand with zero point(s) `zeroPoint` can
/// take, or nullopt when it cannot be bounded (a zero point of unknown
/// origin could be any i32).
std::optional<int64_t> maxCentered(Value operand, Value zeroPoint) {
  // Produced by mix.quantize: its scheme bounds q - z.
  if (auto q = zeroPoint.getDefiningOp<QuantizeOp>())
    return q.getScheme() == QuantScheme::symmetric ? 127 : 255;
  std::optional<SmallVector<int64_t>> zps = constantInts(zeroPoint);
  if (!zps)
    return std::nullopt;
  // Known data: the exact maximum (zero points per column or per tensor).
  if (std::optional<SmallVector<int64_t>> data = constantInts(operand)) {
    int64_t best = 0, cols = static_cast<int64_t>(zps->size());
    auto type = cast<ShapedType>(operand.getType());
    int64_t inner = 1; // conv weights: the channel is dim 0
    if (type.getRank() == 4)
      inner = type.getNumElements() / type.getDimSize(0);
    for (auto [i, q] : llvm::enumerate(*data)) {
      int64_t channel = cols == 1             ? 0
                        : type.getRank() == 4 ? static_cast<int64_t>(i) / inner
                                              : static_cast<int64_t>(i) % cols;
      best = std::max(best, std::abs(q - (*zps)[channel]));
    }
    return best;
  }
  // Any int8 value against known zero points.
  int64_t best = 0;
  for (int64_t z : *zps)
    best = std::max({best, std::abs(-128 - z), std::abs(127 - z)});
  return best;
}

/// K per i32 sum of an integer op, its split, and the operands bounding it.
struct IntegerGemm {
  int64_t k = 0;      ///< products per output
  int64_t pieceK = 0; ///< products per i32 partial sum
  std::optional<int64_t> maxA, maxB;
};

std::optional<IntegerGemm> describeIntegerGemm(Operation *op) {
  auto dim = [](Value v, int64_t i) {
    auto type = cast<ShapedType>(v.getType());
    return type.getDimSize(i < 0 ? type.getRank() + i : i);
  };
  IntegerGemm g;
  std::optional<uint64_t> chunk;
  if (auto d = dyn_cast<QDenseOp>(op)) {
    g.k = dim(d.getWeight(), 0);
    chunk = d.getKChunk();
    g.maxA = maxCentered(d.getInput(), d.getInputZeroPoint());
    g.maxB = maxCentered(d.getWeight(), d.getWeightZeroPoints());
    g.pieceK = chunk ? std::min<int64_t>(g.k, *chunk) : g.k;
  } else if (auto m = dyn_cast<QMatmulOp>(op)) {
    g.k = dim(m.getLhs(), -1);
    chunk = m.getKChunk();
    g.maxA = maxCentered(m.getLhs(), m.getLhsZeroPoint());
    g.maxB = maxCentered(m.getRhs(), m.getRhsZeroPoint());
    g.pieceK = chunk ? std::min<int64_t>(g.k, *chunk) : g.k;
  } else if (auto c = dyn_cast<QConv2DOp>(op)) {
    int64_t window = dim(c.getWeight(), 2) * dim(c.getWeight(), 3);
    int64_t channels = dim(c.getWeight(), 1);
    g.k = channels * window;
    chunk = c.getKChunk();
    // The lowering splits whole input channels.
    int64_t perPiece =
        chunk ? std::max<int64_t>(1, static_cast<int64_t>(*chunk) / window)
              : channels;
    g.pieceK = std::min(channels, perPiece) * window;
    g.maxA = maxCentered(c.getInput(), c.getInputZeroPoint());
    g.maxB = maxCentered(c.getWeight(), c.getWeightZeroPoints());
  } else {
    return std::nullopt;
  }
  return g;
}
} // namespace

LogicalResult mix::checkIntegerAccumulation(Operation *root) {
  bool ok = true;
  root->walk(
      [&](Operation *op) {
        std::optional<IntegerGemm> g = describeIntegerGemm(op);
        if (!g)
          return;
        if (!g->maxA || !g->maxB) {
          op->emitOpError()
              << "cannot prove that its i32 sums fit: a zero point is neither "
                 "produced by mix.quantize nor a constant";
          ok = false;
          return;
        }
        int64_t perProduct = *g->maxA * *g->maxB;
        int64_t worst = g->pieceK * perProduct;
        if (worst <= INT32_MAX)
          return;
        op->emitOpError() << "int8 accumulation can overflow int32: "
                          << g->pieceK << " products per i32 sum (K = " << g->k
                          << ") of at most " << *g->maxA << " x " << *g->maxB
                          << " sum to " << worst << " > 2147483647; at most "
                          << (perProduct ? INT32_MAX / perProduct : 0)
                          << " are safe (k_chunk)";
        ok = false;
      });
  return success(ok);
}

namespace {
struct MixCheckInt8AccumulationPass
    : public mix::impl::MixCheckInt8AccumulationPassBase<
          MixCheckInt8AccumulationPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(checkInt8Accumulation(getOperation(), splitK,
                                     &getAnalysis<PrecisionAnalysis>())) ||
        failed(checkIntegerAccumulation(getOperation())))
      return signalPassFailure();
    // Only `mix.k_chunk` attributes change: resolutions stay valid.
    markAnalysesPreserved<PrecisionAnalysis>();
  }
};
} // namespace
