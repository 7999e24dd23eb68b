//===- Quantize.cpp - int8 layers to quantize, integer GEMM, rescale ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mix-quantize: every int8 dense, matmul and conv2d layer becomes
//
//   mix.quantize (activations) -> mix.qdense/qmatmul/qconv2d (i32 sums,
//   zero-point corrections, f64 rescale to f32, f32 bias)
//
// with weights quantized now, by mixrt itself, so that compiled weights are
// bit-identical to mixrt_quantize_f32. Activation scales come from a
// calibration file (static) or are computed per call (dynamic).
//
//===----------------------------------------------------------------------===//

#include "io/Calibration.h"
#include "mixrt/mixrt.h"
#include "passes/Int8Bounds.h"
#include "passes/Passes.h"
#include "passes/QuantizeRecurrent.h"
#include "passes/Resolve.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <memory>
#include <tuple>

namespace mix {
#define GEN_PASS_DEF_MIXQUANTIZEPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {

/// Owns a mixrt_qtensor.
struct QTensorDeleter {
  void operator()(mixrt_qtensor *q) const { mixrt_qtensor_destroy(q); }
};
using QTensorPtr = std::unique_ptr<mixrt_qtensor, QTensorDeleter>;

mixrt_qscheme toMixrt(QuantScheme scheme) {
  return scheme == QuantScheme::symmetric ? MIXRT_QSCHEME_SYMMETRIC
                                          : MIXRT_QSCHEME_ASYMMETRIC;
}

/// mixrt's quantization of `data` (shape `shape`) per tensor or along
/// `axis`; errors become diagnostics at `op`.
FailureOr<QTensorPtr> quantizeWithMixrt(Operation *op, StringRef what,
                                        ArrayRef<float> data,
                                        ArrayRef<int64_t> shape,
                                        QuantScheme scheme, int64_t axis) {
  mixrt_qtensor *q = nullptr;
  mixrt_status_code code = mixrt_quantize_f32(
      data.data(), shape.data(), static_cast<int32_t>(shape.size()),
      toMixrt(scheme), static_cast<int32_t>(axis), &q);
  if (code != MIXRT_STATUS_OK)
    return op->emitOpError()
           << "cannot quantize " << what << ": " << mixrt_last_error_message();
  return QTensorPtr(q);
}

/// The inline f32 data of a weight, looking through exact widening casts.
/// The mix.weight behind `weight`: through exact widening casts and through
/// block arguments to the value bound to them.
Value traceWeight(Value weight) {
  while (true) {
    if (auto cast = weight.getDefiningOp<CastOp>()) {
      if (!CastOp::isExactWidening(
              getElementTypeOrSelf(cast.getInput().getType()),
              getElementTypeOrSelf(cast.getType())))
        return weight;
      weight = cast.getInput();
      continue;
    }
    if (auto arg = dyn_cast<BlockArgument>(weight))
      if (auto block = dyn_cast<BlockOp>(arg.getOwner()->getParentOp())) {
        weight = block.getInputs()[arg.getArgNumber()];
        continue;
      }
    return weight;
  }
}

FailureOr<std::vector<float>> getWeightData(Operation *layer, Value weight) {
  weight = traceWeight(weight);
  auto def = weight.getDefiningOp<WeightOp>();
  if (!def)
    return layer->emitOpError()
           << "int8 weights must be a mix.weight with known data, to be "
              "quantized at compile time";
  auto value = dyn_cast_or_null<DenseElementsAttr>(def.getValueAttr());
  if (!value) {
    InFlightDiagnostic diag = layer->emitOpError();
    if (def.getRefAttr())
      diag << "int8 weight '" << def.getRefAttr().getValue()
           << "' must be loaded before quantization (mixc --weights)";
    else
      diag << "int8 weights need dense inline data";
    return diag;
  }
  std::vector<float> data;
  data.reserve(value.getNumElements());
  for (APFloat v : value.getValues<APFloat>()) {
    bool lost = false;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    data.push_back(v.convertToFloat());
  }
  return data;
}

struct Quantizer {
  /// Resolved before any rewrite: the rewrites change the structure.
  PrecisionAnalysis *precisions = nullptr;
  const io::CalibrationTable *table = nullptr;
  /// Layer paths, computed before any rewrite changes the op indices.
  llvm::DenseMap<Operation *, std::string> paths;
  bool perTensorWeights = false;
  bool checked = true;

  /// `x` quantized with the activations' scheme: per tensor, or per row
  /// (dynamic) when the precision has axis 0 and `perRowAllowed`. Static
  /// (calibrated) parameters when there is a table and `allowStatic`.
  FailureOr<QuantizeOp> quantizeActivation(OpBuilder &b, Operation *layer,
                                           Value x, PrecisionAttr precision,
                                           StringRef operandName,
                                           bool perRowAllowed,
                                           bool allowStatic = true) const {
    auto type = cast<ShapedType>(x.getType());
    bool perRow = precision.isPerAxis();
    if (perRow &&
        (!perRowAllowed || precision.getAxis() != 0 || type.getRank() != 2))
      return layer->emitOpError()
             << "activations are quantized per tensor, or per row (axis 0) "
                "for the [M, K] input of a dense or the lhs of a matmul; "
                "cannot use "
             << precision.str() << " for its " << operandName << " "
             << formatShape(type.getShape());
    QuantScheme scheme = precision.getScheme();
    FloatAttr scale;
    IntegerAttr zeroPoint;
    // Per-row scales follow each call's rows: they are always dynamic.
    if (table && !perRow && allowStatic) {
      std::string key = paths.lookup(layer) + "/" + operandName.str();
      llvm::Expected<io::CalibrationRange> range = table->lookup(key);
      if (!range)
        return layer->emitOpError() << llvm::toString(range.takeError());
      // The parameters mixrt computes for a tensor whose extremes are the
      // calibrated range.
      float extremes[2] = {static_cast<float>(range->min),
                           static_cast<float>(range->max)};
      int64_t shape[1] = {2};
      FailureOr<QTensorPtr> q =
          quantizeWithMixrt(layer, "the calibrated range of '" + key + "'",
                            extremes, shape, scheme, MIXRT_PER_TENSOR);
      if (failed(q))
        return failure();
      scale = b.getF32FloatAttr(mixrt_qtensor_scales(q->get())[0]);
      zeroPoint = b.getI32IntegerAttr(mixrt_qtensor_zero_points(q->get())[0]);
    }
    MLIRContext *ctx = b.getContext();
    SmallVector<int64_t> params;
    if (perRow)
      params.push_back(type.getDimSize(0));
    return QuantizeOp::create(
        b, layer->getLoc(),
        RankedTensorType::get(type.getShape(), IntegerType::get(ctx, 8)),
        RankedTensorType::get(params, Float32Type::get(ctx)),
        RankedTensorType::get(params, IntegerType::get(ctx, 32)), x,
        QuantSchemeAttr::get(ctx, scheme), scale, zeroPoint,
        perRow ? b.getI64IntegerAttr(0) : IntegerAttr(),
        checked ? b.getUnitAttr() : UnitAttr());
  }

  /// The quantized weight, its scales and zero points as mix.weight ops.
  FailureOr<std::array<Value, 3>> quantizeWeight(OpBuilder &b, Operation *layer,
                                                 Value weight,
                                                 PrecisionAttr precision,
                                                 int64_t channelAxis) const {
    int64_t axis = channelAxis;
    if (precision.isPerAxis()) {
      if (static_cast<int64_t>(precision.getAxis()) != channelAxis)
        return layer->emitOpError()
               << "int8 weights are quantized per output channel (axis "
               << channelAxis << ") or per tensor, not along axis "
               << static_cast<int64_t>(precision.getAxis());
    } else if (perTensorWeights) {
      axis = MIXRT_PER_TENSOR;
    }
    FailureOr<std::vector<float>> data = getWeightData(layer, weight);
    if (failed(data))
      return failure();
    auto type = cast<ShapedType>(weight.getType());
    FailureOr<QTensorPtr> q =
        quantizeWithMixrt(layer, "its weights", *data, type.getShape(),
                          precision.getScheme(), axis);
    if (failed(q))
      return failure();
    // A weight used by several layers the same way is stored once per
    // isolated scope (network or block): a mix.block is isolated from above,
    // so a weight bound into it from outside gets its quantized form inside.
    Value source = traceWeight(weight);
    Operation *scope =
        layer->getParentWithTrait<mlir::OpTrait::IsIsolatedFromAbove>();
    auto key = std::make_tuple(source.getAsOpaquePointer(),
                               static_cast<int>(precision.getScheme()), axis,
                               static_cast<void *>(scope));
    if (auto it = cache.find(key); it != cache.end())
      return it->second;
    MLIRContext *ctx = b.getContext();
    int64_t n = mixrt_qtensor_num_scales(q->get());
    auto i8 = RankedTensorType::get(type.getShape(), IntegerType::get(ctx, 8));
    auto f32 = RankedTensorType::get({n}, Float32Type::get(ctx));
    auto i32 = RankedTensorType::get({n}, IntegerType::get(ctx, 32));
    ArrayRef<int8_t> values(mixrt_qtensor_data(q->get()),
                            mixrt_qtensor_num_elements(q->get()));
    ArrayRef<float> scales(mixrt_qtensor_scales(q->get()), n);
    ArrayRef<int32_t> zeros(mixrt_qtensor_zero_points(q->get()), n);
    // Created where the float weight is when it is in the layer's scope,
    // else at the start of the scope: either way every user in the scope is
    // dominated, and nothing is used across an isolated region.
    OpBuilder wb(b.getContext());
    Operation *def = source.getDefiningOp();
    if (def &&
        def->getParentWithTrait<mlir::OpTrait::IsIsolatedFromAbove>() == scope)
      wb.setInsertionPointAfter(def);
    else
      wb.setInsertionPointToStart(&scope->getRegion(0).front());
    Location loc = source.getLoc();
    auto make = [&](ShapedType t, DenseElementsAttr v) -> Value {
      return WeightOp::create(wb, loc, t, v, StringAttr());
    };
    std::array<Value, 3> result = {
        make(i8, DenseElementsAttr::get(i8, values)),
        make(f32, DenseElementsAttr::get(f32, scales)),
        make(i32, DenseElementsAttr::get(i32, zeros))};
    cache[key] = result;
    return result;
  }

  LogicalResult rewrite(LayerOpInterface layer) const;
  /// Float weights (and widening casts of them) among `weights` that no
  /// longer have a use: they only fed a layer that now reads its int8
  /// form. Their cache entries go too (an op created later may reuse the
  /// address of an erased one and would find another weight's int8 form).
  void eraseDeadWeights(llvm::SmallSetVector<Operation *, 8> &weights) const;
  /// `v` no longer read by a rewritten layer: when it is a mix.block's
  /// argument without uses, the binding goes (argument and block input),
  /// up through the enclosing blocks, and the float weight bound there is
  /// erased if nothing else reads it.
  void dropDeadBinding(Value v) const;
  /// A dense or conv2d with int8 weights and float activations: the weight
  /// quantized at compile time and stored as int8 (+ scales, zero points),
  /// a mix.dequantize before the layer, which computes as before.
  LogicalResult rewriteWeightOnly(Operation *op, PrecisionAttr weights) const;
  /// An int8 lstm or gru, unrolled (QuantizeRecurrent.h); its results'
  /// uses are replaced.
  LogicalResult rewriteRecurrent(Operation *op, PrecisionAttr act,
                                 PrecisionAttr weights) const;

  /// Quantized weights by (float weight, scheme, axis).
  mutable std::map<std::tuple<void *, int, int64_t, void *>,
                   std::array<Value, 3>>
      cache;
};

void Quantizer::eraseDeadWeights(
    llvm::SmallSetVector<Operation *, 8> &weights) const {
  while (!weights.empty()) {
    Operation *def = weights.pop_back_val();
    if (!def->use_empty() || !isa<WeightOp, CastOp>(def))
      continue;
    for (Value v : def->getOperands())
      if (Operation *inner = v.getDefiningOp())
        weights.insert(inner);
    for (Value result : def->getResults())
      for (auto it = cache.begin(); it != cache.end();)
        it = std::get<0>(it->first) == result.getAsOpaquePointer()
                 ? cache.erase(it)
                 : std::next(it);
    def->erase();
  }
}

void Quantizer::dropDeadBinding(Value v) const {
  while (auto arg = dyn_cast<BlockArgument>(v)) {
    auto block = dyn_cast<BlockOp>(arg.getOwner()->getParentOp());
    if (!block || !arg.use_empty())
      return;
    unsigned index = arg.getArgNumber();
    v = block.getInputs()[index];
    block.getInputsMutable().erase(index);
    arg.getOwner()->eraseArgument(index);
  }
  llvm::SmallSetVector<Operation *, 8> outer;
  if (Operation *def = v.getDefiningOp())
    outer.insert(def);
  eraseDeadWeights(outer);
}

LogicalResult Quantizer::rewriteWeightOnly(Operation *op,
                                           PrecisionAttr weights) const {
  OpBuilder b(op);
  // The weight matrices and their output-channel axis: a dense's and an
  // attention's four projections' [in, out] (axis 1), a conv2d's [F, ...]
  // (axis 0).
  SmallVector<OpOperand *, 4> operands;
  int64_t channelAxis = 1;
  if (auto dense = dyn_cast<DenseOp>(op)) {
    operands = {&dense.getWeightMutable()};
  } else if (auto lstm = dyn_cast<LstmOp>(op)) {
    // w [D, 4H, I] and r [D, 4H, H]: per gate row (axis 1, shared by the
    // directions); the biases stay float.
    operands = {&lstm.getWMutable(), &lstm.getRMutable()};
  } else if (auto gru = dyn_cast<GruOp>(op)) {
    operands = {&gru.getWMutable(), &gru.getRMutable()};
  } else if (auto attention = dyn_cast<AttentionOp>(op)) {
    operands = {&attention.getWqMutable(), &attention.getWkMutable(),
                &attention.getWvMutable(), &attention.getWoMutable()};
  } else {
    operands = {&cast<Conv2DOp>(op).getWeightMutable()};
    channelAxis = 0;
  }
  for (OpOperand *operand : operands) {
    // Already rewritten (IR printed after mix-quantize, compiled again).
    if (operand->get().getDefiningOp<DequantizeOp>())
      continue;
    FailureOr<std::array<Value, 3>> wq =
        quantizeWeight(b, op, operand->get(), weights, channelAxis);
    if (failed(wq))
      return failure();
    auto i8Type = cast<ShapedType>((*wq)[0].getType());
    // One scale (per tensor, or a single channel): no axis.
    bool perTensor = cast<ShapedType>((*wq)[1].getType()).getDimSize(0) == 1;
    Value dequantized = DequantizeOp::create(
        b, op->getLoc(), i8Type.clone(b.getF32Type()), (*wq)[0], (*wq)[1],
        (*wq)[2], perTensor ? IntegerAttr() : b.getI64IntegerAttr(channelAxis));
    Value floatWeight = operand->get();
    operand->set(dequantized);
    dropDeadBinding(floatWeight);
  }
  return success();
}

LogicalResult Quantizer::rewrite(LayerOpInterface layer) const {
  Operation *op = layer.getOperation();
  FailureOr<LayerResolution> r = precisions->resolve(layer);
  if (failed(r))
    return failure();
  PrecisionAttr act = r->activations.precision;
  std::optional<PrecisionAttr> w;
  if (r->weights)
    w = r->weights->precision;
  bool int8Act = act.isInt8(), int8W = w && w->isInt8();
  if (!int8Act && !int8W)
    return success();
  if (!isa<DenseOp, MatmulOp, Conv2DOp, AttentionOp, LstmOp, GruOp>(op))
    return success(); // Other layers never compute in int8 (the policy).
  if (int8W && !int8Act &&
      isa<DenseOp, Conv2DOp, AttentionOp, LstmOp, GruOp>(op))
    return rewriteWeightOnly(op, *w);
  // Weight-only int8 was rewritten above (matmul has no weight), so what
  // is left with a mismatch is int8 activations over float weights.
  if (w && int8Act && !int8W)
    return op->emitOpError()
           << "quantizes only its activations (activations " << act.str()
           << ", weights " << w->str() << "); int8 layers need both in int8";

  OpBuilder b(op);
  auto chunk = op->getAttrOfType<IntegerAttr>(kKChunkAttrName);
  Value result;
  if (isa<LstmOp, GruOp>(op)) {
    if (failed(rewriteRecurrent(op, act, *w)))
      return failure();
  } else if (auto dense = dyn_cast<DenseOp>(op)) {
    FailureOr<QuantizeOp> x =
        quantizeActivation(b, op, dense.getInput(), act, "input",
                           /*perRowAllowed=*/true);
    if (failed(x))
      return failure();
    FailureOr<std::array<Value, 3>> wq =
        quantizeWeight(b, op, dense.getWeight(), *w, /*channelAxis=*/1);
    if (failed(wq))
      return failure();
    result =
        QDenseOp::create(b, op->getLoc(), dense.getType(), x->getResult(),
                         x->getUsedScale(), x->getUsedZeroPoint(), (*wq)[0],
                         (*wq)[1], (*wq)[2], dense.getBias(), chunk);
  } else if (auto conv = dyn_cast<Conv2DOp>(op)) {
    FailureOr<QuantizeOp> x =
        quantizeActivation(b, op, conv.getInput(), act, "input",
                           /*perRowAllowed=*/false);
    if (failed(x))
      return failure();
    FailureOr<std::array<Value, 3>> wq =
        quantizeWeight(b, op, conv.getWeight(), *w, /*channelAxis=*/0);
    if (failed(wq))
      return failure();
    result = QConv2DOp::create(
        b, op->getLoc(), conv.getType(), x->getResult(), x->getUsedScale(),
        x->getUsedZeroPoint(), (*wq)[0], (*wq)[1], (*wq)[2], conv.getBias(),
        conv.getStridesAttr(), conv.getPaddingAttr(), conv.getDilationsAttr(),
        conv.getGroupsAttr(), chunk);
  } else if (auto attention = dyn_cast<AttentionOp>(op)) {
    // The four projections become integer GEMMs (one quantization of the
    // input shared by q, k and v) with the biases added in f32 after the
    // rescale, as mix.qdense adds a dense layer's; scores, the mask, softmax
    // and the weighted sum run in f32 between them; the context is quantized
    // (per tensor, dynamic) for the output projection.
    FailureOr<QuantizeOp> x =
        quantizeActivation(b, op, attention.getInput(), act, "input",
                           /*perRowAllowed=*/false);
    if (failed(x))
      return failure();
    auto f32Type = cast<ShapedType>(attention.getType())
                       .clone(Float32Type::get(b.getContext()));
    auto project = [&](Value in, Value scale, Value zp, Value weight,
                       Value bias) -> FailureOr<Value> {
      FailureOr<std::array<Value, 3>> wq =
          quantizeWeight(b, op, weight, *w, /*channelAxis=*/1);
      if (failed(wq))
        return failure();
      return QDenseOp::create(b, op->getLoc(), f32Type, in, scale, zp, (*wq)[0],
                              (*wq)[1], (*wq)[2], bias, chunk)
          .getResult();
    };
    FailureOr<Value> q =
        project(x->getResult(), x->getUsedScale(), x->getUsedZeroPoint(),
                attention.getWq(), attention.getBq());
    FailureOr<Value> k =
        project(x->getResult(), x->getUsedScale(), x->getUsedZeroPoint(),
                attention.getWk(), attention.getBk());
    FailureOr<Value> v =
        project(x->getResult(), x->getUsedScale(), x->getUsedZeroPoint(),
                attention.getWv(), attention.getBv());
    if (failed(q) || failed(k) || failed(v))
      return failure();
    Value context = AttentionCoreOp::create(
        b, op->getLoc(), f32Type, *q, *k, *v, attention.getMask(),
        attention.getNumHeadsAttr(), attention.getCausalAttr());
    // The context is an intermediate value: its scale is always dynamic.
    FailureOr<QuantizeOp> c = quantizeActivation(
        b, op, context,
        PrecisionAttr::get(b.getContext(), PrecisionKind::int8, act.getScheme(),
                           -1),
        "context", /*perRowAllowed=*/false, /*allowStatic=*/false);
    if (failed(c))
      return failure();
    FailureOr<Value> out =
        project(c->getResult(), c->getUsedScale(), c->getUsedZeroPoint(),
                attention.getWo(), attention.getBo());
    if (failed(out))
      return failure();
    result = *out;
    if (result.getType() != attention.getType())
      result = CastOp::create(b, op->getLoc(), attention.getType(), result);
  } else {
    auto matmul = cast<MatmulOp>(op);
    FailureOr<QuantizeOp> lhs =
        quantizeActivation(b, op, matmul.getLhs(), act, "lhs",
                           /*perRowAllowed=*/true);
    if (failed(lhs))
      return failure();
    // The rhs is quantized per tensor (per row of it would be along K).
    FailureOr<QuantizeOp> rhs = quantizeActivation(
        b, op, matmul.getRhs(),
        PrecisionAttr::get(b.getContext(), PrecisionKind::int8, act.getScheme(),
                           -1),
        "rhs",
        /*perRowAllowed=*/false);
    if (failed(rhs))
      return failure();
    result = QMatmulOp::create(
        b, op->getLoc(), matmul.getType(), lhs->getResult(),
        lhs->getUsedScale(), lhs->getUsedZeroPoint(), rhs->getResult(),
        rhs->getUsedScale(), rhs->getUsedZeroPoint(), chunk);
  }
  // Each defining op once: one value may feed several operands (a weight
  // shared by the q/k/v/o projections), and an op must not be erased twice.
  llvm::SmallSetVector<Operation *, 8> weights;
  SmallVector<Value> bound;
  for (Value v : op->getOperands()) {
    if (Operation *def = v.getDefiningOp())
      weights.insert(def);
    else if (!llvm::is_contained(bound, v))
      bound.push_back(v);
  }
  if (result)
    op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  eraseDeadWeights(weights);
  // Weights bound into a block from outside (block arguments): dropped when
  // no longer read. Activations are block arguments too, but still read.
  for (Value v : bound)
    dropDeadBinding(v);
  return success();
}

LogicalResult Quantizer::rewriteRecurrent(Operation *op, PrecisionAttr act,
                                          PrecisionAttr weights) const {
  FailureOr<std::vector<float>> w = getWeightData(op, op->getOperand(1));
  if (failed(w))
    return failure();
  FailureOr<std::vector<float>> r = getWeightData(op, op->getOperand(2));
  if (failed(r))
    return failure();
  RecurrentQuantizer hooks;
  hooks.weight = [&](ArrayRef<float> data, int64_t k,
                     int64_t n) -> FailureOr<std::array<Value, 3>> {
    // A transient f32 weight holding the slice, quantized like a dense
    // layer's [K, N] weight, then dropped (with its cache entry: its
    // address may be reused).
    OpBuilder b(op);
    auto type = RankedTensorType::get({k, n}, b.getF32Type());
    auto transient =
        WeightOp::create(b, op->getLoc(), type,
                         DenseElementsAttr::get(type, data), StringAttr());
    FailureOr<std::array<Value, 3>> q =
        quantizeWeight(b, op, transient, weights, /*channelAxis=*/1);
    for (auto it = cache.begin(); it != cache.end();)
      it = std::get<0>(it->first) == transient.getResult().getAsOpaquePointer()
               ? cache.erase(it)
               : std::next(it);
    transient.erase();
    return q;
  };
  hooks.activation = [&](OpBuilder &b, Value x,
                         bool layerInput) -> FailureOr<QuantizeOp> {
    PrecisionAttr precision = act;
    if (!layerInput && !act.isPerAxis())
      precision = PrecisionAttr::get(b.getContext(), PrecisionKind::int8,
                                     act.getScheme(), -1);
    return quantizeActivation(b, op, x, precision,
                              layerInput ? "input" : "state",
                              /*perRowAllowed=*/true,
                              /*allowStatic=*/layerInput);
  };
  return quantizeRecurrentLayer(op, *w, *r, hooks);
}

struct MixQuantizePass
    : public mix::impl::MixQuantizePassBase<MixQuantizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Quantizer quantizer;
    quantizer.checked = checked;
    if (weightGranularity == "tensor") {
      quantizer.perTensorWeights = true;
    } else if (weightGranularity != "channel") {
      module.emitError() << "mix-quantize: weight-granularity must be "
                            "'channel' or 'tensor', got '"
                         << weightGranularity << "'";
      return signalPassFailure();
    }
    std::optional<io::CalibrationTable> table;
    if (!calibration.empty()) {
      llvm::Expected<io::CalibrationTable> read =
          io::readCalibration(calibration);
      if (!read) {
        module.emitError() << llvm::toString(read.takeError());
        return signalPassFailure();
      }
      table = std::move(*read);
      quantizer.table = &*table;
    }
    // Record every resolution first: rewriting changes the structure. The
    // analysis is not preserved: layers are replaced.
    PrecisionAnalysis &precisions = getAnalysis<PrecisionAnalysis>();
    quantizer.precisions = &precisions;
    if (failed(precisions.record()))
      return signalPassFailure();
    SmallVector<LayerOpInterface> layers;
    module.walk([&](LayerOpInterface layer) {
      if (!layer.isInt8Capable())
        return;
      layers.push_back(layer);
      quantizer.paths[layer] = getLayerPath(layer);
    });
    bool ok = true;
    for (LayerOpInterface layer : layers) {
      bool int8 = false;
      if (FailureOr<LayerResolution> r = precisions.resolve(layer);
          succeeded(r))
        int8 = r->activations.precision.isInt8() ||
               (r->weights && r->weights->precision.isInt8());
      if (failed(quantizer.rewrite(layer)))
        ok = false;
      else if (int8)
        ++numQuantized;
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
