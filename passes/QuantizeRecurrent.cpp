//===- QuantizeRecurrent.cpp - int8 lstm and gru for mix-quantize ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// An int8 mix.lstm or mix.gru becomes the ops it computes, unrolled over
// its time steps. Per direction d (G = 4 gates for lstm, 3 for gru):
//
// - the input GEMM of every step at once: the input `[S*B, I]` (its scale
//   calibrated or dynamic, as a dense layer's) times `W_d^T` `[I, G*H]`
//   (quantized per output channel, i.e. per gate row of `w`), plus the
//   input biases `Wb_d` in f32: one mix.qdense;
// - per step t (descending for a reverse direction): `h_{t-1}` quantized
//   with a dynamic per-tensor scale (per row when the activations are per
//   axis 0), times `R_d^T` `[H, G*H]`, plus `Rb_d`: one mix.qdense (a gru
//   without linear_before_reset has two: the z and r rows on h, then the
//   h rows on r * h); the gates and the state update as the layer's
//   formulas write them, in f32 (mix.sigmoid, mix.tanh, mix.add, mix.mul),
//   the new state rounded to the state precision when that is not f32.
//
// The integer GEMMs are ordinary mix.qdense ops: the int32 proof
// (Int8Bounds), the microkernels and the interpreter's exact emulation all
// apply to them unchanged. Weights are quantized once per direction; the
// quantized R_d is shared by every step. The graph grows with the sequence:
// about 12 ops per step and direction, against the float layer's loop.
//
//===----------------------------------------------------------------------===//

#include "passes/QuantizeRecurrent.h"

#include "dialect/MixAttrs.h"

using namespace mlir;
using namespace mix;

namespace {

/// Builds the ops of the unrolled layer at the layer's position, each a
/// layer computing in f32.
struct Emitter {
  OpBuilder &b;
  Location loc;
  PrecisionAttr f32Precision;
  Type f32;

  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<ShapedType>(v.getType()).getShape();
  }
  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, f32);
  }
  template <typename OpTy>
  Value make(Type t, ValueRange operands,
             ArrayRef<NamedAttribute> attrs = {}) const {
    Operation *op = OpTy::create(b, loc, TypeRange{t}, operands, attrs);
    if (isa<LayerOpInterface>(op))
      op->setAttr("precision", f32Precision);
    return op->getResult(0);
  }
  template <typename OpTy> Value binary(Value lhs, Value rhs) const {
    ArrayRef<int64_t> shape =
        shapeOf(lhs).empty() ? shapeOf(rhs) : shapeOf(lhs);
    return make<OpTy>(type(shape), {lhs, rhs});
  }
  template <typename OpTy> Value unary(Value x) const {
    return make<OpTy>(x.getType(), {x});
  }
  /// `v` converted to `element` (itself when it has that type).
  Value convert(Value v, Type element) const {
    auto t = cast<ShapedType>(v.getType());
    if (t.getElementType() == element)
      return v;
    return CastOp::create(b, loc, t.clone(element), v);
  }
  Value constant(ArrayRef<int64_t> shape, float value) const {
    auto t = type(shape);
    return WeightOp::create(
               b, loc, TypeRange{t}, ValueRange{},
               {b.getNamedAttr("value", DenseElementsAttr::get(t, value))})
        ->getResult(0);
  }
  Value reshape(Value v, ArrayRef<int64_t> shape) const {
    if (shapeOf(v) == shape)
      return v;
    return make<ReshapeOp>(cast<ShapedType>(v.getType()).clone(shape), {v});
  }
  /// `v[begin:end]` along `axis`.
  Value slice(Value v, int64_t axis, int64_t begin, int64_t end) const {
    SmallVector<int64_t> shape(shapeOf(v));
    if (begin == 0 && end == shape[axis])
      return v;
    shape[axis] = end - begin;
    return make<SliceOp>(
        cast<ShapedType>(v.getType()).clone(shape), {v},
        {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({axis})),
         b.getNamedAttr("starts", b.getDenseI64ArrayAttr({begin})),
         b.getNamedAttr("ends", b.getDenseI64ArrayAttr({end})),
         b.getNamedAttr("steps", b.getDenseI64ArrayAttr({1}))});
  }
  /// `values` joined along `axis` (one value: itself).
  Value concat(ArrayRef<Value> values, int64_t axis) const {
    if (values.size() == 1)
      return values.front();
    SmallVector<int64_t> shape(shapeOf(values.front()));
    shape[axis] = 0;
    for (Value v : values)
      shape[axis] += shapeOf(v)[axis];
    return make<ConcatOp>(
        cast<ShapedType>(values.front().getType()).clone(shape), values,
        {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
  }
};

/// Columns [n0, n1) of `W_d^T` for weights `data` of shape `[D, G*H, K]`:
/// the row-major `[K, n1 - n0]` matrix with element (k, n - n0) =
/// `data[d, n, k]`.
std::vector<float> transposedRows(ArrayRef<float> data, int64_t d, int64_t gh,
                                  int64_t k, int64_t n0, int64_t n1) {
  int64_t n = n1 - n0;
  std::vector<float> out(static_cast<size_t>(k * n));
  for (int64_t row = n0; row < n1; ++row)
    for (int64_t col = 0; col < k; ++col)
      out[col * n + (row - n0)] = data[(d * gh + row) * k + col];
  return out;
}

} // namespace

LogicalResult mix::quantizeRecurrentLayer(Operation *op, ArrayRef<float> w,
                                          ArrayRef<float> r,
                                          const RecurrentQuantizer &quantizer) {
  auto lstm = dyn_cast<LstmOp>(op);
  auto gru = dyn_cast<GruOp>(op);
  OpBuilder b(op);
  MLIRContext *ctx = op->getContext();
  Emitter e{b, op->getLoc(), PrecisionAttr::get(ctx, PrecisionKind::f32),
            Float32Type::get(ctx)};
  Type stateType = (lstm ? lstm.getStatePrecisionOrDefault()
                         : gru.getStatePrecisionOrDefault())
                       .getElementType();
  Value x = e.convert(op->getOperand(0), e.f32);
  Value bias = lstm ? lstm.getB() : gru.getB();
  if (bias)
    bias = e.convert(bias, e.f32);
  Value initialH = lstm ? lstm.getInitialH() : gru.getInitialH();
  Value initialC = lstm ? lstm.getInitialC() : Value();
  bool batchFirst = (lstm ? lstm.getLayout() : gru.getLayout()) == 1;
  bool reverse = (lstm ? lstm.getDirection() : gru.getDirection()) == "reverse";
  int64_t dirs = lstm ? lstm.getNumDirections() : gru.getNumDirections();
  int64_t hidden = lstm ? lstm.getHiddenSize() : gru.getHiddenSize();
  int64_t gh = (lstm ? 4 : 3) * hidden;
  bool linearBeforeReset = gru && gru.getLinearBeforeReset() != 0;
  ArrayRef<int64_t> xs = Emitter::shapeOf(x);
  int64_t steps = batchFirst ? xs[1] : xs[0];
  int64_t batch = batchFirst ? xs[0] : xs[1];
  int64_t in = xs[2];

  // x W^T + bias through one qdense; `weight` is an int8 weight of
  // RecurrentQuantizer::weight.
  auto gemm = [&](Value input, const std::array<Value, 3> &weight, Value bias,
                  bool layerInput) -> FailureOr<Value> {
    FailureOr<QuantizeOp> q = quantizer.activation(b, input, layerInput);
    if (failed(q))
      return failure();
    int64_t rows = Emitter::shapeOf(input)[0];
    int64_t cols = Emitter::shapeOf(weight[0])[1];
    return QDenseOp::create(b, e.loc, e.type({rows, cols}), q->getResult(),
                            q->getUsedScale(), q->getUsedZeroPoint(), weight[0],
                            weight[1], weight[2], bias, IntegerAttr())
        .getResult();
  };
  auto weightOf = [&](ArrayRef<float> data, int64_t d, int64_t k, int64_t n0,
                      int64_t n1) {
    std::vector<float> t = transposedRows(data, d, gh, k, n0, n1);
    return quantizer.weight(t, k, n1 - n0);
  };
  // Biases [n1 - n0] of direction d: part 0 the input ones, 1 the
  // recurrent ones.
  auto biasOf = [&](int64_t d, int64_t part, int64_t n0, int64_t n1) {
    if (!bias)
      return Value();
    Value row = e.slice(bias, 0, d, d + 1);
    Value cols = e.slice(row, 1, part * gh + n0, part * gh + n1);
    return e.reshape(cols, {n1 - n0});
  };
  // A state of direction d as [B, H] in f32 (a missing one is 0).
  auto initial = [&](Value v, int64_t d) {
    if (!v)
      return e.constant({batch, hidden}, 0.0f);
    Value s = e.slice(v, batchFirst ? 1 : 0, d, d + 1);
    return e.convert(e.reshape(s, {batch, hidden}), e.f32);
  };
  // The state rounded to the state precision (and read back in f32).
  auto rounded = [&](Value v) {
    if (stateType == e.f32)
      return v;
    return e.convert(e.convert(v, stateType), e.f32);
  };
  auto gate = [&](Value v, int64_t k) {
    return e.slice(v, 1, k * hidden, (k + 1) * hidden);
  };

  // The input rows in the input's order: (t, b) time first, (b, t) batch
  // first.
  Value rows = e.reshape(x, {steps * batch, in});
  SmallVector<SmallVector<Value>> hs(dirs, SmallVector<Value>(steps));
  SmallVector<Value> lastH(dirs), lastC(dirs);
  for (int64_t d = 0; d < dirs; ++d) {
    bool backward = reverse || d == 1;
    FailureOr<std::array<Value, 3>> wd = weightOf(w, d, in, 0, gh);
    if (failed(wd))
      return failure();
    FailureOr<Value> gx = gemm(rows, *wd, biasOf(d, 0, 0, gh), true);
    if (failed(gx))
      return failure();
    Value gxSteps = batchFirst ? e.reshape(*gx, {batch, steps, gh}) : *gx;
    // The recurrent weights: all rows, or (gru without linear_before_reset)
    // the z and r rows and the h rows apart.
    int64_t first = linearBeforeReset || lstm ? gh : 2 * hidden;
    FailureOr<std::array<Value, 3>> rd = weightOf(r, d, hidden, 0, first);
    if (failed(rd))
      return failure();
    FailureOr<std::array<Value, 3>> rh;
    if (first != gh && failed(rh = weightOf(r, d, hidden, first, gh)))
      return failure();
    Value rb = biasOf(d, 1, 0, first);
    Value rbh = first != gh ? biasOf(d, 1, first, gh) : Value();

    Value h = initial(initialH, d);
    Value c = lstm ? initial(initialC, d) : Value();
    for (int64_t step = 0; step < steps; ++step) {
      int64_t t = backward ? steps - 1 - step : step;
      Value gxt = batchFirst
                      ? e.reshape(e.slice(gxSteps, 1, t, t + 1), {batch, gh})
                      : e.slice(gxSteps, 0, t * batch, (t + 1) * batch);
      FailureOr<Value> hr = gemm(h, *rd, rb, false);
      if (failed(hr))
        return failure();
      if (lstm) {
        Value g = e.binary<AddOp>(gxt, *hr);
        Value i = e.unary<SigmoidOp>(gate(g, 0));
        Value o = e.unary<SigmoidOp>(gate(g, 1));
        Value f = e.unary<SigmoidOp>(gate(g, 2));
        Value candidate = e.unary<TanhOp>(gate(g, 3));
        Value kept = e.binary<MulOp>(f, c);
        Value added = e.binary<MulOp>(i, candidate);
        c = rounded(e.binary<AddOp>(kept, added));
        Value squashed = e.unary<TanhOp>(c);
        h = rounded(e.binary<MulOp>(o, squashed));
      } else {
        Value gz = gate(gxt, 0), gr = gate(gxt, 1), gh2 = gate(gxt, 2);
        Value z = e.unary<SigmoidOp>(e.binary<AddOp>(gz, gate(*hr, 0)));
        Value reset = e.unary<SigmoidOp>(e.binary<AddOp>(gr, gate(*hr, 1)));
        Value recurrent;
        if (linearBeforeReset) {
          recurrent = e.binary<MulOp>(reset, gate(*hr, 2));
        } else {
          Value resetH = e.binary<MulOp>(reset, h);
          FailureOr<Value> hh = gemm(resetH, *rh, rbh, false);
          if (failed(hh))
            return failure();
          recurrent = *hh;
        }
        Value candidate = e.unary<TanhOp>(e.binary<AddOp>(gh2, recurrent));
        // h_t = (1 - z) * h' + z * h_{t-1}.
        Value keep = e.binary<SubOp>(e.constant({}, 1.0f), z);
        Value fresh = e.binary<MulOp>(keep, candidate);
        Value carried = e.binary<MulOp>(z, h);
        h = rounded(e.binary<AddOp>(fresh, carried));
      }
      hs[d][t] = h;
    }
    lastH[d] = h;
    lastC[d] = c;
  }

  // y: [S, D, B, H] time first (the states in (t, d) order joined along
  // the rows), [B, S, D, H] batch first (joined along the columns).
  auto replace = [&](Value result, Value value) {
    result.replaceAllUsesWith(
        e.convert(value, getElementTypeOrSelf(result.getType())));
  };
  Value y = op->getResult(0);
  if (!y.use_empty()) {
    SmallVector<Value> all;
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t d = 0; d < dirs; ++d)
        all.push_back(hs[d][t]);
    Value joined = e.concat(all, batchFirst ? 1 : 0);
    replace(y, e.reshape(joined, Emitter::shapeOf(y)));
  }
  // y_h, y_c: [D, B, H] time first, [B, D, H] batch first.
  auto final = [&](ArrayRef<Value> values, Value result) {
    if (result.use_empty())
      return;
    Value joined = e.concat(values, batchFirst ? 1 : 0);
    replace(result, e.reshape(joined, Emitter::shapeOf(result)));
  };
  final(lastH, op->getResult(1));
  if (lstm)
    final(lastC, op->getResult(2));
  return success();
}
