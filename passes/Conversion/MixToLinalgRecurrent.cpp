//===- MixToLinalgRecurrent.cpp - lstm to linalg and scf ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The float recurrent layers. mix.gru is built like mix.lstm (see
// GruLowering). mix.lstm becomes:
//
// 1. the input GEMM of every time step at once (one generic per
//    direction; batch first with microkernels, one per sequence in an
//    scf.for), into an accumulator [D, S, B, 4H] filled with the biases
//    (Wb + Rb, each widened exactly, summed in the accumulator type);
// 2. per direction, an scf.for over the time steps (descending for a
//    reverse direction) carrying the step's gate slice of that
//    accumulator, the hidden and cell states (at the state precision) and
//    y: the recurrent GEMM adds h_{t-1} R^T into the step's gate slice in
//    place, then one elementwise generic over [B, H] computes the gates in
//    the accumulator type and writes c_t and h_t (rounded to the state
//    precision) over the previous states and y's slice (h_t converted to
//    the output precision);
// 3. y_h and y_c from the final states of each direction.
//
// Every slice is written by the generic that computes it (destination
// passing), so bufferization updates the buffers in place: no copies, no
// allocation inside the loops.
//
// With an f32 accumulator and f32 operands (x widened exactly from f16 or
// bf16 for the input GEMM), both GEMMs are marked
// "recurrent_gemm_f32" (C += A W^T, W a [G, K] slice of the weight):
// mix-use-microkernels packs W^T at compile time and calls mixrt's f32
// GEMM, which continues each output's fma chain from the value in C.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixAttrNames.h"
#include "passes/Conversion/LayerLowering.h"
#include "passes/InsertCasts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

using utils::IteratorType;

/// Scalar helpers in one float type, one op per statement.
struct Gates {
  OpBuilder &b;
  Location loc;
  Type type;

  Value one() const {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1.0));
  }
  /// 1 / (1 + exp(-x)), as mix.sigmoid computes it.
  Value sigmoid(Value x) const {
    Value negated = arith::NegFOp::create(b, loc, x);
    Value e = math::ExpOp::create(b, loc, negated);
    Value denominator = arith::AddFOp::create(b, loc, one(), e);
    return arith::DivFOp::create(b, loc, one(), denominator);
  }
  Value tanh(Value x) const { return math::TanhOp::create(b, loc, x); }
  Value mul(Value x, Value y) const {
    return arith::MulFOp::create(b, loc, x, y);
  }
  Value add(Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
};

SmallVector<OpFoldResult> indices(OpBuilder &b, ArrayRef<Value> dynamic,
                                  ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> r;
  for (auto [i, v] : llvm::enumerate(values))
    r.push_back(dynamic.size() > i && dynamic[i]
                    ? OpFoldResult(dynamic[i])
                    : OpFoldResult(b.getIndexAttr(v)));
  return r;
}

/// A rank-reduced [rows, cols] slice of `source` at `offsets` (sizes 1
/// except the dimensions `rowDim` and `colDim`).
struct Slice2D {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  RankedTensorType type;

  Value extract(OpBuilder &b, Location loc, Value source) const {
    return tensor::ExtractSliceOp::create(b, loc, type, source, offsets, sizes,
                                          strides);
  }
  Value insert(OpBuilder &b, Location loc, Value value, Value dest) const {
    return tensor::InsertSliceOp::create(b, loc, value, dest, offsets, sizes,
                                         strides);
  }
};

Slice2D slice2D(OpBuilder &b, ArrayRef<int64_t> shape,
                ArrayRef<OpFoldResult> offsets, int64_t rowDim, int64_t colDim,
                Type elem) {
  Slice2D s;
  s.offsets.assign(offsets.begin(), offsets.end());
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    s.sizes.push_back(
        b.getIndexAttr(d == rowDim || d == colDim ? shape[d] : 1));
    s.strides.push_back(b.getIndexAttr(1));
  }
  s.type = RankedTensorType::get({shape[rowDim], shape[colDim]}, elem);
  return s;
}

/// A fresh [rows, cols] tensor of `elem`: `initial`'s slice for direction
/// `d` converted to `elem` (`initial` is [D, B, H], or [B, D, H] batch
/// first), or 0 without one.
Value initialState(OpBuilder &b, Location loc, Value initial, int64_t d,
                   bool batchFirst, int64_t batch, int64_t hidden, Type elem) {
  if (!initial)
    return zeroFilled(b, loc, {batch, hidden}, elem);
  MLIRContext *ctx = b.getContext();
  return generic(b, loc, ValueRange{}, {batch, hidden}, elem, std::nullopt,
                 {AffineMap::getMultiDimIdentityMap(2, ctx)},
                 {IteratorType::parallel, IteratorType::parallel},
                 [&](OpBuilder &nb, Location l, ValueRange) {
                   Value n = linalg::IndexOp::create(nb, l, 0);
                   Value j = linalg::IndexOp::create(nb, l, 1);
                   Value dv = arith::ConstantIndexOp::create(nb, l, d);
                   SmallVector<Value> at = batchFirst
                                               ? SmallVector<Value>{n, dv, j}
                                               : SmallVector<Value>{dv, n, j};
                   Value v = tensor::ExtractOp::create(nb, l, initial, at);
                   return convertScalar(nb, l, v, elem);
                 });
}

/// y_h or y_c ([D, B, H], or [B, D, H] batch first, in the output type)
/// from each direction's final state ([B, H] each).
Value finalStates(OpBuilder &b, Location loc, ArrayRef<Value> states,
                  RankedTensorType type, bool batchFirst) {
  MLIRContext *ctx = b.getContext();
  Type out = type.getElementType();
  return generic(
      b, loc, ValueRange{}, type.getShape(), out, std::nullopt,
      {AffineMap::getMultiDimIdentityMap(3, ctx)},
      SmallVector<IteratorType>(3, IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange) {
        Value d = linalg::IndexOp::create(nb, l, batchFirst ? 1 : 0);
        Value n = linalg::IndexOp::create(nb, l, batchFirst ? 0 : 1);
        Value j = linalg::IndexOp::create(nb, l, 2);
        Value v = tensor::ExtractOp::create(nb, l, states[0], {n, j});
        if (states.size() == 2) {
          Value second = tensor::ExtractOp::create(nb, l, states[1], {n, j});
          Value zero = arith::ConstantIndexOp::create(nb, l, 0);
          Value first =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, d, zero);
          v = arith::SelectOp::create(nb, l, first, v, second);
        }
        return convertScalar(nb, l, v, out);
      });
}

/// The body of the layers' GEMMs: acc = fma(a, w, acc), a and w converted
/// to the accumulator type `acc` first (exactly, for the widening cases).
std::function<Value(OpBuilder &, Location, ValueRange)> fmaBody(Type acc) {
  return [acc](OpBuilder &nb, Location l, ValueRange a) {
    Value av = convertScalar(nb, l, a[0], acc);
    Value wv = convertScalar(nb, l, a[1], acc);
    return Value(math::FmaOp::create(nb, l, av, wv, a[2]));
  };
}

/// Marks `gemm` (a generic C += A x W^T: A [..., K] and C [..., N] with
/// their rows in the same order, W a [N, K] slice of the layer's weight)
/// for mixrt's f32 GEMM with MIXRT_UKERNEL_ACCUMULATE (each output's chain
/// continues from the value in C, as the loop's fma chain does), when A and
/// C are f32 and microkernels are on. mix-use-microkernels calls the kernel
/// when W is a view of a constant it can pack; the loops stay otherwise.
void markRecurrentGemm(OpBuilder &b, Value gemm, Value a,
                       const MixToLinalgOptions &options) {
  Type f32 = b.getF32Type();
  if (options.microkernels &&
      cast<ShapedType>(a.getType()).getElementType() == f32 &&
      cast<ShapedType>(gemm.getType()).getElementType() == f32)
    gemm.getDefiningOp()->setAttr(attr::kUkernel,
                                  b.getStringAttr("recurrent_gemm_f32"));
}

/// C[m, g] += A[m, k] x W[g, k]^T on the rank-2 `a`, `w` and `c` as one
/// generic (k the reduction, ascending: each output's chain continues from
/// the value in C), marked for mixrt's GEMM by markRecurrentGemm.
Value rowsGemm(OpBuilder &b, Location loc, Value a, Value w, Value c, Type acc,
               const MixToLinalgOptions &options) {
  MLIRContext *ctx = b.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), g = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  Value sum = generic(
      b, loc, ValueRange{a, w}, c,
      {AffineMap::get(3, 0, {m, k}, ctx), AffineMap::get(3, 0, {g, k}, ctx),
       AffineMap::get(3, 0, {m, g}, ctx)},
      {IteratorType::parallel, IteratorType::parallel, IteratorType::reduction},
      fmaBody(acc));
  markRecurrentGemm(b, sum, a, options);
  return sum;
}

/// The input GEMM of direction `d` of a batch-first layer, one sequence at
/// a time: for n in [0, B), xw[d, s, n, :] += x[n, s, :] W_d^T, each output
/// accumulated in ascending k from the value in xw (the same chains as the
/// one generic over (s, n, g, k)); each marked "recurrent_gemm_f32".
Value sequenceGemms(OpBuilder &b, Location loc, Value x, Value wd, Value xw,
                    int64_t d, Type acc, const MixToLinalgOptions &options) {
  ArrayRef<int64_t> xwShape = cast<ShapedType>(xw.getType()).getShape();
  ArrayRef<int64_t> xShape = cast<ShapedType>(x.getType()).getShape();
  int64_t steps = xwShape[1], batch = xwShape[2], gates = xwShape[3];
  Type xElem = cast<ShapedType>(x.getType()).getElementType();
  Value lb = arith::ConstantIndexOp::create(b, loc, 0);
  Value ub = arith::ConstantIndexOp::create(b, loc, batch);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, one, ValueRange{xw},
      [&](OpBuilder &lb2, Location l, Value seq, ValueRange carried) {
        Slice2D xSlice = slice2D(lb2, xShape, indices(lb2, {seq}, {0, 0, 0}), 1,
                                 2, xElem); // x[n]: [S, I]
        Value xn = xSlice.extract(lb2, l, x);
        Slice2D cSlice =
            slice2D(lb2, {xwShape[0], steps, batch, gates},
                    indices(lb2, {Value(), Value(), seq}, {d, 0, 0, 0}), 1, 3,
                    acc); // xw[d, :, n, :]: [S, G]
        Value init = cSlice.extract(lb2, l, carried[0]);
        Value sum = rowsGemm(lb2, l, xn, wd, init, acc, options);
        scf::YieldOp::create(
            lb2, l, ValueRange{cSlice.insert(lb2, l, sum, carried[0])});
      });
  return loop.getResult(0);
}

/// The input GEMM of every step, one generic per direction d:
/// xw[d, s, n, :] += x[s, n, :] W_d^T (x[n, s, :] batch first), each output
/// accumulated in ascending k from the value in xw ([D, S, B, G]).
Value inputGemm(OpBuilder &b, Location loc, Value x, Value w, Value xw,
                bool batchFirst, Type acc, const MixToLinalgOptions &options) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> xwShape = cast<ShapedType>(xw.getType()).getShape();
  auto wType = cast<RankedTensorType>(w.getType());
  int64_t dirs = xwShape[0], steps = xwShape[1], batch = xwShape[2];
  // Loops (s, n, g, k), k the reduction, ascending.
  AffineExpr s = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             g = getAffineDimExpr(2, ctx), k = getAffineDimExpr(3, ctx);
  AffineMap xMap = batchFirst ? AffineMap::get(4, 0, {n, s, k}, ctx)
                              : AffineMap::get(4, 0, {s, n, k}, ctx);
  AffineMap wMap = AffineMap::get(4, 0, {g, k}, ctx);
  AffineMap outMap = AffineMap::get(4, 0, {s, n, g}, ctx);
  SmallVector<IteratorType> iterators(3, IteratorType::parallel);
  iterators.push_back(IteratorType::reduction);
  // Rows of x in xw's order: time first, or one sequence, or one step.
  bool rowsInOrder = !batchFirst || batch == 1 || steps == 1;
  // f16/bf16 activations into an f32 accumulator: widened exactly first
  // (the loop's own conversion, once per element), so the GEMM takes f32
  // activations, as mix.dense's does.
  auto xType = cast<RankedTensorType>(x.getType());
  if (options.microkernels && acc.isF32() &&
      (xType.getElementType().isF16() || xType.getElementType().isBF16()))
    x = convertTensor(b, loc, x, xType.clone(acc));
  for (int64_t d = 0; d < dirs; ++d) {
    Slice2D wSlice = slice2D(b, wType.getShape(), indices(b, {}, {d, 0, 0}), 1,
                             2, wType.getElementType());
    Value wd = wSlice.extract(b, loc, w); // [G, I]
    if (!rowsInOrder && options.microkernels) {
      // Batch first, several sequences and steps: one GEMM per sequence n,
      // x[n] [S, I] into xw[d, :, n, :] ([S, G], rows B * G apart), in an
      // scf.for over n.
      xw = sequenceGemms(b, loc, x, wd, xw, d, acc, options);
      continue;
    }
    SmallVector<OpFoldResult> offsets = indices(b, {}, {d, 0, 0, 0});
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(steps),
                                       b.getIndexAttr(batch),
                                       b.getIndexAttr(xwShape[3])};
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    auto sliceType = RankedTensorType::get({steps, batch, xwShape[3]}, acc);
    Value init = tensor::ExtractSliceOp::create(b, loc, sliceType, xw, offsets,
                                                sizes, strides);
    Value sum = generic(b, loc, ValueRange{x, wd}, init, {xMap, wMap, outMap},
                        iterators, fmaBody(acc));
    if (rowsInOrder)
      markRecurrentGemm(b, sum, x, options);
    xw =
        tensor::InsertSliceOp::create(b, loc, sum, xw, offsets, sizes, strides);
  }
  return xw;
}

struct LstmLowering : MixLoweringPattern<LstmOp> {
  using MixLoweringPattern::MixLoweringPattern;

  LogicalResult
  matchAndRewrite(LstmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> accOr =
        accumulatorType(cast<LayerOpInterface>(op.getOperation()));
    if (failed(accOr) || !isa<FloatType>(*accOr))
      return rewriter.notifyMatchFailure(op, "no float accumulator type");
    Type acc = *accOr;
    Type state = getComputeElementType(op.getStatePrecisionOrDefault());
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    OpBuilder &b = rewriter;

    auto yType = cast<RankedTensorType>(op.getY().getType());
    auto hType = cast<RankedTensorType>(op.getYH().getType());
    auto cType = cast<RankedTensorType>(op.getYC().getType());
    Type out = yType.getElementType();
    Value x = adaptor.getInput(), w = adaptor.getW(), r = adaptor.getR();
    Value bias = adaptor.getB();
    bool batchFirst = op.getLayout() == 1;
    ArrayRef<int64_t> xShape = cast<ShapedType>(x.getType()).getShape();
    int64_t steps = batchFirst ? xShape[1] : xShape[0];
    int64_t batch = batchFirst ? xShape[0] : xShape[1];
    int64_t dirs = op.getNumDirections(), hidden = op.getHiddenSize();
    int64_t gates = 4 * hidden;
    bool reverse = op.getDirection() == "reverse";

    // 1. The biases, then the input GEMM of every step: [D, S, B, 4H].
    SmallVector<int64_t> xwShape = {dirs, steps, batch, gates};
    Value xw;
    if (bias) {
      xw =
          generic(b, loc, ValueRange{}, xwShape, acc, std::nullopt,
                  {AffineMap::getMultiDimIdentityMap(4, ctx)},
                  SmallVector<IteratorType>(4, IteratorType::parallel),
                  [&](OpBuilder &nb, Location l, ValueRange) {
                    Value d = linalg::IndexOp::create(nb, l, 0);
                    Value g = linalg::IndexOp::create(nb, l, 3);
                    Value wb = tensor::ExtractOp::create(nb, l, bias, {d, g});
                    Value shifted = arith::AddIOp::create(
                        nb, l, g, arith::ConstantIndexOp::create(nb, l, gates));
                    Value rb =
                        tensor::ExtractOp::create(nb, l, bias, {d, shifted});
                    Value wide = convertScalar(nb, l, wb, acc);
                    Value wideR = convertScalar(nb, l, rb, acc);
                    return Value(arith::AddFOp::create(nb, l, wide, wideR));
                  });
    } else {
      xw = zeroFilled(b, loc, xwShape, acc);
    }
    xw = inputGemm(b, loc, x, w, xw, batchFirst, acc, options);

    // 2. The time loop of each direction.
    Value y = tensor::EmptyOp::create(b, loc, yType.getShape(), out);
    SmallVector<Value> finalH, finalC;
    for (int64_t dir = 0; dir < dirs; ++dir) {
      bool backward = reverse || dir == 1;
      Value h0 = initialState(b, loc, adaptor.getInitialH(), dir, batchFirst,
                              batch, hidden, state);
      Value c0 = initialState(b, loc, adaptor.getInitialC(), dir, batchFirst,
                              batch, hidden, state);
      ArrayRef<int64_t> rShape = cast<ShapedType>(r.getType()).getShape();
      Slice2D rSlice = slice2D(b, rShape, indices(b, {}, {dir, 0, 0}), 1, 2,
                               cast<ShapedType>(r.getType()).getElementType());
      Value rd = rSlice.extract(b, loc, r); // [4H, H]
      Value lb = arith::ConstantIndexOp::create(b, loc, 0);
      Value ub = arith::ConstantIndexOp::create(b, loc, steps);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto loop = scf::ForOp::create(
          b, loc, lb, ub, one, ValueRange{xw, h0, c0, y},
          [&](OpBuilder &lbld, Location l, Value step, ValueRange carried) {
            Value t = step;
            if (backward) {
              Value last = arith::ConstantIndexOp::create(lbld, l, steps - 1);
              t = arith::SubIOp::create(lbld, l, last, step);
            }
            Value xwIn = carried[0], hPrev = carried[1], cPrev = carried[2],
                  yIn = carried[3];
            // The recurrent GEMM into the step's gate slice [B, 4H].
            Slice2D gSlice =
                slice2D(lbld, xwShape,
                        indices(lbld, {Value(), t}, {dir, 0, 0, 0}), 2, 3, acc);
            Value gInit = gSlice.extract(lbld, l, xwIn);
            Value gv = rowsGemm(lbld, l, hPrev, rd, gInit, acc, options);
            Value xwOut = gSlice.insert(lbld, l, gv, xwIn);
            // The gates and the new states, written over the previous ones
            // and into y's slice.
            SmallVector<int64_t> yOffsets =
                batchFirst ? SmallVector<int64_t>{0, 0, dir, 0}
                           : SmallVector<int64_t>{0, dir, 0, 0};
            SmallVector<Value> yDynamic = batchFirst
                                              ? SmallVector<Value>{Value(), t}
                                              : SmallVector<Value>{t};
            Slice2D ySlice = slice2D(lbld, yType.getShape(),
                                     indices(lbld, yDynamic, yOffsets),
                                     batchFirst ? 0 : 2, 3, out);
            Value yInit = ySlice.extract(lbld, l, yIn);
            AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
            auto cell = linalg::GenericOp::create(
                lbld, l,
                TypeRange{hPrev.getType(), cPrev.getType(), yInit.getType()},
                ValueRange{}, ValueRange{hPrev, cPrev, yInit},
                SmallVector<AffineMap>{id, id, id},
                SmallVector<IteratorType>{IteratorType::parallel,
                                          IteratorType::parallel},
                [&](OpBuilder &nb, Location bl, ValueRange a) {
                  Value nIdx = linalg::IndexOp::create(nb, bl, 0);
                  Value j = linalg::IndexOp::create(nb, bl, 1);
                  auto gate = [&](int64_t q) {
                    Value col = j;
                    if (q != 0)
                      col = arith::AddIOp::create(
                          nb, bl, j,
                          arith::ConstantIndexOp::create(nb, bl, q * hidden));
                    return Value(tensor::ExtractOp::create(
                        nb, bl, gv, ValueRange{nIdx, col}));
                  };
                  Gates s{nb, bl, acc};
                  // ONNX's order: i, o, f, c.
                  Value gi = gate(0);
                  Value go = gate(1);
                  Value gf = gate(2);
                  Value gc = gate(3);
                  Value i = s.sigmoid(gi);
                  Value o = s.sigmoid(go);
                  Value f = s.sigmoid(gf);
                  Value candidate = s.tanh(gc);
                  Value cOld = convertScalar(nb, bl, a[1], acc);
                  Value kept = s.mul(f, cOld);
                  Value added = s.mul(i, candidate);
                  Value cNew = s.add(kept, added);
                  Value cState = convertScalar(nb, bl, cNew, state);
                  Value cWide = convertScalar(nb, bl, cState, acc);
                  Value squashed = s.tanh(cWide);
                  Value hNew = s.mul(o, squashed);
                  Value hState = convertScalar(nb, bl, hNew, state);
                  Value yv = convertScalar(nb, bl, hState, out);
                  linalg::YieldOp::create(nb, bl,
                                          ValueRange{hState, cState, yv});
                });
            Value yOut = ySlice.insert(lbld, l, cell.getResult(2), yIn);
            scf::YieldOp::create(
                lbld, l,
                ValueRange{xwOut, cell.getResult(0), cell.getResult(1), yOut});
          });
      xw = loop.getResult(0);
      finalH.push_back(loop.getResult(1));
      finalC.push_back(loop.getResult(2));
      y = loop.getResult(3);
    }

    // 3. y_h and y_c.
    Value yh = finalStates(b, loc, finalH, hType, batchFirst);
    Value yc = finalStates(b, loc, finalC, cType, batchFirst);
    rewriter.replaceOp(op, ValueRange{y, yh, yc});
    return success();
  }
};

/// `acc += v R^T` over rows [row0, row0 + rows) of `rd` ([G, H]) into
/// columns [row0, row0 + rows) of `acc` ([B, G]), in place.
Value recurrentGemm(OpBuilder &b, Location loc, Value v, Value rd, Value acc,
                    int64_t row0, int64_t rows,
                    const MixToLinalgOptions &options) {
  auto accType = cast<RankedTensorType>(acc.getType());
  auto rType = cast<RankedTensorType>(rd.getType());
  Type accElem = accType.getElementType();
  int64_t batch = accType.getDimSize(0), hidden = rType.getDimSize(1);
  bool whole = row0 == 0 && rows == accType.getDimSize(1);
  Slice2D accSlice =
      slice2D(b, accType.getShape(), indices(b, {}, {0, row0}), 0, 1, accElem);
  accSlice.sizes[1] = b.getIndexAttr(rows);
  accSlice.type = RankedTensorType::get({batch, rows}, accElem);
  Slice2D rSlice = slice2D(b, rType.getShape(), indices(b, {}, {row0, 0}), 0, 1,
                           rType.getElementType());
  rSlice.sizes[0] = b.getIndexAttr(rows);
  rSlice.type = RankedTensorType::get({rows, hidden}, rType.getElementType());
  Value init = whole ? acc : accSlice.extract(b, loc, acc);
  Value rows2 = whole ? rd : rSlice.extract(b, loc, rd);
  Value sum = rowsGemm(b, loc, v, rows2, init, accElem, options);
  return whole ? sum : accSlice.insert(b, loc, sum, acc);
}

/// mix.gru: as mix.lstm, with the input GEMM and the biases of every step
/// at once into [D, S, B, 3H] (the recurrent bias Rbh stays out of it with
/// linear_before_reset), and per step a [B, 3H] accumulator of the
/// recurrent products carried by the loop: filled with [0, 0, Rbh] (Rbh
/// with linear_before_reset, else 0), then h_{t-1} R^T added for all rows
/// (linear_before_reset) or for z and r only, then (r * h_{t-1}) Rh^T for
/// the candidate's rows, r * h_{t-1} computed into a [B, H] scratch.
struct GruLowering : MixLoweringPattern<GruOp> {
  using MixLoweringPattern::MixLoweringPattern;

  LogicalResult
  matchAndRewrite(GruOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Type> accOr =
        accumulatorType(cast<LayerOpInterface>(op.getOperation()));
    if (failed(accOr) || !isa<FloatType>(*accOr))
      return rewriter.notifyMatchFailure(op, "no float accumulator type");
    Type acc = *accOr;
    Type state = getComputeElementType(op.getStatePrecisionOrDefault());
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    OpBuilder &b = rewriter;

    auto yType = cast<RankedTensorType>(op.getY().getType());
    auto hType = cast<RankedTensorType>(op.getYH().getType());
    Type out = yType.getElementType();
    Value x = adaptor.getInput(), w = adaptor.getW(), r = adaptor.getR();
    Value bias = adaptor.getB();
    bool batchFirst = op.getLayout() == 1;
    bool lbr = op.getLinearBeforeReset() != 0;
    ArrayRef<int64_t> xShape = cast<ShapedType>(x.getType()).getShape();
    int64_t steps = batchFirst ? xShape[1] : xShape[0];
    int64_t batch = batchFirst ? xShape[0] : xShape[1];
    int64_t dirs = op.getNumDirections(), hidden = op.getHiddenSize();
    int64_t gates = 3 * hidden;
    bool reverse = op.getDirection() == "reverse";

    // 1. Biases (Wb + Rb; Wb alone for the candidate with
    // linear_before_reset), then the input GEMM of every step.
    SmallVector<int64_t> xwShape = {dirs, steps, batch, gates};
    Value xw;
    if (bias) {
      xw = generic(
          b, loc, ValueRange{}, xwShape, acc, std::nullopt,
          {AffineMap::getMultiDimIdentityMap(4, ctx)},
          SmallVector<IteratorType>(4, IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange) {
            Value d = linalg::IndexOp::create(nb, l, 0);
            Value g = linalg::IndexOp::create(nb, l, 3);
            Value wb = tensor::ExtractOp::create(nb, l, bias, {d, g});
            Value shifted = arith::AddIOp::create(
                nb, l, g, arith::ConstantIndexOp::create(nb, l, gates));
            Value rb = tensor::ExtractOp::create(nb, l, bias, {d, shifted});
            Value wide = convertScalar(nb, l, wb, acc);
            Value wideR = convertScalar(nb, l, rb, acc);
            if (lbr) {
              Value limit = arith::ConstantIndexOp::create(nb, l, 2 * hidden);
              Value candidate = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::sge, g, limit);
              Value zero =
                  arith::ConstantOp::create(nb, l, nb.getFloatAttr(acc, 0.0));
              wideR = arith::SelectOp::create(nb, l, candidate, zero, wideR);
            }
            return Value(arith::AddFOp::create(nb, l, wide, wideR));
          });
    } else {
      xw = zeroFilled(b, loc, xwShape, acc);
    }
    xw = inputGemm(b, loc, x, w, xw, batchFirst, acc, options);

    // 2. The time loop of each direction.
    Value y = tensor::EmptyOp::create(b, loc, yType.getShape(), out);
    Value recInit = tensor::EmptyOp::create(b, loc, {batch, gates}, acc);
    Value scratchInit = tensor::EmptyOp::create(b, loc, {batch, hidden}, state);
    SmallVector<Value> finalH;
    for (int64_t dir = 0; dir < dirs; ++dir) {
      bool backward = reverse || dir == 1;
      Value h0 = initialState(b, loc, adaptor.getInitialH(), dir, batchFirst,
                              batch, hidden, state);
      ArrayRef<int64_t> rShape = cast<ShapedType>(r.getType()).getShape();
      Slice2D rSlice = slice2D(b, rShape, indices(b, {}, {dir, 0, 0}), 1, 2,
                               cast<ShapedType>(r.getType()).getElementType());
      Value rd = rSlice.extract(b, loc, r); // [3H, H]
      Value lb = arith::ConstantIndexOp::create(b, loc, 0);
      Value ub = arith::ConstantIndexOp::create(b, loc, steps);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto loop = scf::ForOp::create(
          b, loc, lb, ub, one, ValueRange{h0, y, recInit, scratchInit},
          [&](OpBuilder &lbld, Location l, Value step, ValueRange carried) {
            Value t = step;
            if (backward) {
              Value last = arith::ConstantIndexOp::create(lbld, l, steps - 1);
              t = arith::SubIOp::create(lbld, l, last, step);
            }
            Value hPrev = carried[0], yIn = carried[1], rec = carried[2],
                  scratch = carried[3];
            Slice2D gSlice =
                slice2D(lbld, xwShape,
                        indices(lbld, {Value(), t}, {dir, 0, 0, 0}), 2, 3, acc);
            Value gx = gSlice.extract(lbld, l, xw); // [B, 3H], read only
            AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
            // The recurrent accumulator: Rbh in the candidate's columns with
            // linear_before_reset, else 0.
            rec = generic(
                lbld, l, ValueRange{}, rec, {id},
                {IteratorType::parallel, IteratorType::parallel},
                [&](OpBuilder &nb, Location bl, ValueRange) {
                  Value zero = arith::ConstantOp::create(
                      nb, bl, nb.getFloatAttr(acc, 0.0));
                  if (!lbr || !bias)
                    return zero;
                  Value g = linalg::IndexOp::create(nb, bl, 1);
                  Value limit =
                      arith::ConstantIndexOp::create(nb, bl, 2 * hidden);
                  Value candidate = arith::CmpIOp::create(
                      nb, bl, arith::CmpIPredicate::sge, g, limit);
                  Value dv = arith::ConstantIndexOp::create(nb, bl, dir);
                  // Rb of row g sits at column 3H + g of b.
                  Value col = arith::AddIOp::create(
                      nb, bl, g, arith::ConstantIndexOp::create(nb, bl, gates));
                  Value clamped = arith::SelectOp::create(
                      nb, bl, candidate, col,
                      arith::ConstantIndexOp::create(nb, bl, gates));
                  Value rbv = tensor::ExtractOp::create(
                      nb, bl, bias, ValueRange{dv, clamped});
                  Value wide = convertScalar(nb, bl, rbv, acc);
                  return Value(
                      arith::SelectOp::create(nb, bl, candidate, wide, zero));
                });
            rec = recurrentGemm(lbld, l, hPrev, rd, rec, 0,
                                lbr ? gates : 2 * hidden, options);
            auto at = [&](OpBuilder &nb, Location bl, Value tensor, int64_t q,
                          Value nIdx, Value j) {
              Value col = j;
              if (q != 0)
                col = arith::AddIOp::create(
                    nb, bl, j,
                    arith::ConstantIndexOp::create(nb, bl, q * hidden));
              return Value(tensor::ExtractOp::create(nb, bl, tensor,
                                                     ValueRange{nIdx, col}));
            };
            if (!lbr) {
              // r * h_{t-1} (at the state precision), then its GEMM with Rh.
              scratch = generic(
                  lbld, l, ValueRange{hPrev}, scratch, {id, id},
                  {IteratorType::parallel, IteratorType::parallel},
                  [&](OpBuilder &nb, Location bl, ValueRange a) {
                    Gates gs{nb, bl, acc};
                    Value nIdx = linalg::IndexOp::create(nb, bl, 0);
                    Value j = linalg::IndexOp::create(nb, bl, 1);
                    Value pre = gs.add(at(nb, bl, gx, 1, nIdx, j),
                                       at(nb, bl, rec, 1, nIdx, j));
                    Value reset = gs.sigmoid(pre);
                    Value hv = convertScalar(nb, bl, a[0], acc);
                    return convertScalar(nb, bl, gs.mul(reset, hv), state);
                  });
              rec = recurrentGemm(lbld, l, scratch, rd, rec, 2 * hidden, hidden,
                                  options);
            }
            SmallVector<int64_t> yOffsets =
                batchFirst ? SmallVector<int64_t>{0, 0, dir, 0}
                           : SmallVector<int64_t>{0, dir, 0, 0};
            SmallVector<Value> yDynamic = batchFirst
                                              ? SmallVector<Value>{Value(), t}
                                              : SmallVector<Value>{t};
            Slice2D ySlice = slice2D(lbld, yType.getShape(),
                                     indices(lbld, yDynamic, yOffsets),
                                     batchFirst ? 0 : 2, 3, out);
            Value yInit = ySlice.extract(lbld, l, yIn);
            auto cell = linalg::GenericOp::create(
                lbld, l, TypeRange{hPrev.getType(), yInit.getType()},
                ValueRange{}, ValueRange{hPrev, yInit},
                SmallVector<AffineMap>{id, id},
                SmallVector<IteratorType>{IteratorType::parallel,
                                          IteratorType::parallel},
                [&](OpBuilder &nb, Location bl, ValueRange a) {
                  Gates gs{nb, bl, acc};
                  Value nIdx = linalg::IndexOp::create(nb, bl, 0);
                  Value j = linalg::IndexOp::create(nb, bl, 1);
                  Value zPre = gs.add(at(nb, bl, gx, 0, nIdx, j),
                                      at(nb, bl, rec, 0, nIdx, j));
                  Value z = gs.sigmoid(zPre);
                  Value hRec = at(nb, bl, rec, 2, nIdx, j);
                  if (lbr) {
                    Value rPre = gs.add(at(nb, bl, gx, 1, nIdx, j),
                                        at(nb, bl, rec, 1, nIdx, j));
                    Value reset = gs.sigmoid(rPre);
                    hRec = gs.mul(reset, hRec);
                  }
                  Value hPre = gs.add(at(nb, bl, gx, 2, nIdx, j), hRec);
                  Value candidate = gs.tanh(hPre);
                  Value hOld = convertScalar(nb, bl, a[0], acc);
                  // (1 - z) * h' + z * h_{t-1}
                  Value keep = arith::SubFOp::create(nb, bl, gs.one(), z);
                  Value fresh = gs.mul(keep, candidate);
                  Value kept = gs.mul(z, hOld);
                  Value hNew = gs.add(fresh, kept);
                  Value hState = convertScalar(nb, bl, hNew, state);
                  Value yv = convertScalar(nb, bl, hState, out);
                  linalg::YieldOp::create(nb, bl, ValueRange{hState, yv});
                });
            Value yOut = ySlice.insert(lbld, l, cell.getResult(1), yIn);
            scf::YieldOp::create(
                lbld, l, ValueRange{cell.getResult(0), yOut, rec, scratch});
          });
      finalH.push_back(loop.getResult(0));
      y = loop.getResult(1);
      recInit = loop.getResult(2);
      scratchInit = loop.getResult(3);
    }

    // 3. y_h.
    Value yh = finalStates(b, loc, finalH, hType, batchFirst);
    rewriter.replaceOp(op, ValueRange{y, yh});
    return success();
  }
};

} // namespace

void mix::lowering::populateRecurrentPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<LstmLowering, GruLowering>(patterns.getContext(), options);
}
