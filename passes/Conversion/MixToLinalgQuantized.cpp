//===- MixToLinalgQuantized.cpp - lowering of the int8 ops ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mix.quantize, mix.qdense, mix.qmatmul and mix.qconv2d to linalg on
// tensors, with mixrt's arithmetic:
//
//   quantize  q = clamp(roundeven(x / scale) + zp) in the input type, then
//             narrowed (mixrt_quantize_f32); dynamic parameters computed in
//             f64 from min(min x, 0) and max(max x, 0) as mixrt does;
//   GEMMs     acc = sum (a - za) * (b - zb) in i32 (proven not to wrap), or
//             i32 pieces added exactly in f64 when K is split;
//   rescale   (f32)((f64)sa * (f64)sb * (f64)acc) (mixrt_gemm_s8_f32), then
//             the bias in f32: the bias epilogue of the float layers, with the
//             rescale before the bias (LayerLowering.h).
//
// With microkernels, qconv2d of one group (static shapes, K not split) sums
// in one loop over the unpadded input (unpaddedIntConvolution), which
// mix-use-microkernels turns into one call of mixrt_ukernel_conv2d_s8s8s32:
// the patches packed block by block inside the call, the weight [F,
// C*KH*KW] as the left-hand side, the sums written in NCHW and read in
// order by the rescale. qconv2d of several groups
// (depthwise or grouped) sums on mixrt's f32 convolution kernels instead
// when the constant weights prove every partial sum an integer below 2^24,
// exact in f32 (lowerAsExactF32); otherwise it stays loops.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "dialect/MixAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cfloat>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

Value f64Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
}

/// The scalar of a rank-0 tensor.
Value scalarOf(OpBuilder &b, Location loc, Value tensor0d) {
  return tensor::ExtractOp::create(b, loc, tensor0d, ValueRange{});
}

/// The type quantize computes in: f32 for 16-bit inputs (exact widening),
/// else the input type.
Type quantizeComputeType(OpBuilder &b, Type in) {
  return cast<FloatType>(in).getWidth() < 32 ? Type(b.getF32Type()) : in;
}

/// The shape of the quantization parameters: [] per tensor, [size of the
/// axis] per axis.
SmallVector<int64_t> paramShape(ShapedType input, std::optional<int64_t> axis) {
  if (!axis)
    return {};
  return {input.getDimSize(*axis)};
}

/// Reads a parameter tensor inside a generic over `rank` loops.
AffineMap paramMap(int64_t rank, std::optional<int64_t> axis,
                   MLIRContext *ctx) {
  if (!axis)
    return AffineMap::get(rank, 0, {}, ctx);
  return AffineMap::get(rank, 0, {getAffineDimExpr(*axis, ctx)}, ctx);
}

/// min(min x, 0) and max(max x, 0) per slice of `input` (the whole tensor,
/// or each index along `axis`): 0-initialised reductions (NaN propagates; it
/// is reported by the quantize itself).
std::pair<Value, Value> valueRange(OpBuilder &b, Location loc, Value input,
                                   std::optional<int64_t> axis) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<ShapedType>(input.getType());
  Type elem = type.getElementType();
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape = paramShape(type, axis);
  AffineMap slice = paramMap(rank, axis, ctx);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 slice, slice};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  if (axis)
    iterators[*axis] = utils::IteratorType::parallel;
  Value zeros[2] = {zeroFilled(b, loc, shape, elem),
                    zeroFilled(b, loc, shape, elem)};
  auto range = linalg::GenericOp::create(
      b, loc, TypeRange{zeros[0].getType(), zeros[1].getType()},
      ValueRange{input}, ValueRange{zeros[0], zeros[1]}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value lo = arith::MinimumFOp::create(nb, l, a[1], a[0]);
        Value hi = arith::MaximumFOp::create(nb, l, a[2], a[0]);
        linalg::YieldOp::create(nb, l, ValueRange{lo, hi});
      });
  // Per tensor in f32: mixrt's one-pass range microkernel computes exactly
  // this (mix-use-microkernels).
  if (!axis && elem.isF32())
    range->setAttr(attr::kUkernel, b.getStringAttr("range_f32"));
  return {range.getResult(0), range.getResult(1)};
}

/// The scale (f32) and zero point (i32) of one slice whose range is
/// [lo, hi], computed in f64 as mixrt does. With `checked`, a finite range
/// whose scale overflows f32 is reported at `op` (slice `index`).
std::pair<Value, Value> sliceParams(OpBuilder &nb, Location l, Operation *op,
                                    Value loIn, Value hiIn, QuantScheme scheme,
                                    bool checked, function_ref<Value()> index) {
  Type f64 = nb.getF64Type(), f32 = nb.getF32Type(), i32 = nb.getI32Type();
  Value lo = convertScalar(nb, l, loIn, f64);
  Value hi = convertScalar(nb, l, hiIn, f64);
  Value zero = f64Const(nb, l, 0.0);
  // One op per statement where two operands are created: the order of
  // function arguments is unspecified, and the IR must not depend on the
  // compiler that built mixc (gcc and clang order them differently).
  Value wide;
  if (scheme == QuantScheme::symmetric) {
    Value levels = f64Const(nb, l, 127.0);
    wide = arith::DivFOp::create(
        nb, l,
        arith::MaximumFOp::create(nb, l, arith::NegFOp::create(nb, l, lo), hi),
        levels);
  } else {
    Value levels = f64Const(nb, l, 255.0);
    wide = arith::DivFOp::create(nb, l, arith::SubFOp::create(nb, l, hi, lo),
                                 levels);
  }
  Value scale = arith::TruncFOp::create(nb, l, f32, wide);
  if (checked) {
    // mixrt rejects a finite range whose scale overflows f32 (f64
    // data); a non-finite input is reported by the element check.
    Value inf = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(INFINITY));
    Value inf64 = f64Const(nb, l, INFINITY);
    Value hiFinite =
        arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT,
                              math::AbsFOp::create(nb, l, hi), inf64);
    Value loFinite =
        arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT,
                              math::AbsFOp::create(nb, l, lo), inf64);
    Value finiteRange = arith::AndIOp::create(nb, l, loFinite, hiFinite);
    Value bad = arith::AndIOp::create(
        nb, l, finiteRange,
        arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                              math::AbsFOp::create(nb, l, scale), inf));
    emitCheck(nb, l, op, bad, MIXRT_STATUS_OUT_OF_RANGE,
              "int8 quantization scale is not representable in f32", index(),
              wide);
  }
  scale = arith::MaximumFOp::create(
      nb, l, scale,
      arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(FLT_MIN)));
  Value zp = arith::ConstantIntOp::create(nb, l, i32, 0);
  if (scheme == QuantScheme::asymmetric) {
    // round_half_even(-128 - lo / scale), clamped to [-128, 127].
    Value ratio = arith::DivFOp::create(
        nb, l, lo, arith::ExtFOp::create(nb, l, f64, scale));
    Value q = arith::SubFOp::create(nb, l, f64Const(nb, l, -128.0), ratio);
    q = math::RoundEvenOp::create(nb, l, q);
    Value qmax = f64Const(nb, l, 127.0);
    Value qmin = f64Const(nb, l, -128.0);
    q = arith::MinimumFOp::create(
        nb, l, arith::MaximumFOp::create(nb, l, q, qmin), qmax);
    zp = arith::FPToSIOp::create(nb, l, i32, q);
  }
  // An all-zero slice: scale 1, zero point 0.
  Value hiZero =
      arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, hi, zero);
  Value loZero =
      arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, lo, zero);
  Value allZero = arith::AndIOp::create(nb, l, loZero, hiZero);
  scale = arith::SelectOp::create(
      nb, l, allZero,
      arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(1.0f)), scale);
  zp = arith::SelectOp::create(nb, l, allZero,
                               arith::ConstantIntOp::create(nb, l, i32, 0), zp);
  return {scale, zp};
}

/// mixrt's parameters from the data, per tensor or per index along `axis`:
/// returns (scales f32, zero points i32) tensors of paramShape().
std::pair<Value, Value> dynamicParams(OpBuilder &b, Location loc, Operation *op,
                                      Value input, QuantScheme scheme,
                                      std::optional<int64_t> axis,
                                      bool checked) {
  MLIRContext *ctx = b.getContext();
  auto [lo, hi] = valueRange(b, loc, input, axis);
  SmallVector<int64_t> shape =
      paramShape(cast<ShapedType>(input.getType()), axis);
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  int64_t prank = static_cast<int64_t>(shape.size());
  AffineMap id = AffineMap::getMultiDimIdentityMap(prank, ctx);
  auto params = linalg::GenericOp::create(
      b, loc,
      TypeRange{RankedTensorType::get(shape, f32),
                RankedTensorType::get(shape, i32)},
      ValueRange{lo, hi},
      ValueRange{tensor::EmptyOp::create(b, loc, shape, f32),
                 tensor::EmptyOp::create(b, loc, shape, i32)},
      SmallVector<AffineMap>(4, id),
      SmallVector<utils::IteratorType>(prank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto index = [&]() -> Value {
          if (prank == 0)
            return arith::ConstantIntOp::create(nb, l, nb.getI64Type(), 0);
          return linearIndex(nb, l, shape);
        };
        auto [scale, zp] =
            sliceParams(nb, l, op, a[0], a[1], scheme, checked, index);
        linalg::YieldOp::create(nb, l, ValueRange{scale, zp});
      });
  return {params.getResult(0), params.getResult(1)};
}

struct QuantizeLowering : MixLoweringPattern<QuantizeOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto inType = cast<ShapedType>(input.getType());
    Type compute = quantizeComputeType(rewriter, inType.getElementType());
    bool checked = options.checks && op.getChecked();
    std::optional<int64_t> axis;
    if (std::optional<uint64_t> a = op.getAxis())
      axis = static_cast<int64_t>(*a);
    Value scales, zps;
    if (op.getScaleAttr()) {
      auto f32 = RankedTensorType::get({}, rewriter.getF32Type());
      auto i32 = RankedTensorType::get({}, rewriter.getI32Type());
      scales = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(f32, op.getScaleAttr()));
      zps = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(i32, op.getZeroPointAttr()));
    } else {
      std::tie(scales, zps) = dynamicParams(rewriter, loc, op, input,
                                            op.getScheme(), axis, checked);
    }
    bool symmetric = op.getScheme() == QuantScheme::symmetric;
    double qmin = symmetric ? -127.0 : -128.0, qmax = 127.0;
    auto outType = cast<ShapedType>(op.getResult().getType());
    int64_t rank = outType.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap param = paramMap(rank, axis, ctx);
    Value q = generic(
        rewriter, loc, ValueRange{input, scales, zps}, outType.getShape(),
        rewriter.getI8Type(), std::nullopt, {id, param, param, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = convertScalar(b, l, a[0], compute);
          Value scale = convertScalar(b, l, a[1], compute);
          Value zp = arith::SIToFPOp::create(b, l, compute, a[2]);
          Value r = math::RoundEvenOp::create(
              b, l, arith::DivFOp::create(b, l, x, scale));
          r = arith::AddFOp::create(b, l, r, zp);
          auto c = [&](double v) {
            return arith::ConstantOp::create(b, l, b.getFloatAttr(compute, v));
          };
          // Clamp before narrowing; NaN (only from non-finite input, which
          // is reported when checked) becomes the zero point. (Operands
          // created one per statement, see sliceParams.)
          Value upper = c(qmax);
          Value lower = c(qmin);
          Value clamped = arith::MinimumFOp::create(
              b, l, arith::MaximumFOp::create(b, l, r, lower), upper);
          Value isNaN =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, r, r);
          clamped = arith::SelectOp::create(b, l, isNaN, zp, clamped);
          if (checked) {
            Value inf = c(INFINITY);
            Value notFinite =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::UGE,
                                      math::AbsFOp::create(b, l, x), inf);
            Value reported = convertScalar(b, l, x, b.getF64Type());
            Value index = linearIndex(b, l, outType.getShape());
            emitCheck(b, l, op, notFinite, MIXRT_STATUS_INVALID_ARGUMENT,
                      "non-finite value reaches an int8 quantize", index,
                      reported);
          }
          return Value(arith::FPToSIOp::create(b, l, b.getI8Type(), clamped));
        });
    // An f32 quantize is mixrt_ukernel_quantize_f32_s8 when per tensor
    // (mix-use-microkernels). The per-element check keeps the loop scalar:
    // otherwise the pass runs this checked loop only when a vector pass
    // finds a non-finite input, and a copy without the check otherwise.
    if (inType.getElementType().isF32())
      q.getDefiningOp()->setAttr(
          attr::kUkernel, rewriter.getStringAttr(checked ? "checked_quantize"
                                                         : "quantize_f32"));
    rewriter.replaceOp(op, {q, scales, zps});
    return success();
  }
};

/// `scale * (q - zero_point)` in f32 per element: the i32 difference is
/// exact and so is its conversion (|q - zp| <= 255); one rounding in the
/// product, as mixrt_dequantize_f32.
struct DequantizeLowering : MixLoweringPattern<DequantizeOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(DequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    auto outType = cast<ShapedType>(op.getResult().getType());
    int64_t rank = outType.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    // One parameter (index 0) or one per index along the axis.
    AffineMap param =
        op.getAxis()
            ? AffineMap::get(
                  rank, 0,
                  {getAffineDimExpr(static_cast<int64_t>(*op.getAxis()), ctx)},
                  ctx)
            : AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx);
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    Value x = generic(
        rewriter, op.getLoc(),
        ValueRange{adaptor.getInput(), adaptor.getScales(),
                   adaptor.getZeroPoints()},
        outType.getShape(), f32, std::nullopt, {id, param, param, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value q = arith::ExtSIOp::create(b, l, i32, a[0]);
          Value d = arith::SIToFPOp::create(
              b, l, f32, arith::SubIOp::create(b, l, q, a[2]));
          return Value(arith::MulFOp::create(b, l, a[1], d));
        });
    // mix-use-microkernels packs a constant int8 weight that a dense reads
    // with its parameters (mixrt_ukernel_pack_b_dequantized).
    x.getDefiningOp()->setAttr(attr::kUkernel,
                               rewriter.getStringAttr("dequantize"));
    rewriter.replaceOp(op, x);
    return success();
  }
};

/// The i32 contraction sum_k (lhs - lz) * (rhs - rz) into `init` (0-filled)
/// with the given maps (lhs, rhs, lhs zero point, rhs zero point, out).
Value intContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                     Value lhsZp, Value rhsZp, Value init,
                     ArrayRef<AffineMap> maps,
                     ArrayRef<utils::IteratorType> iterators) {
  Type i32 = b.getI32Type();
  return generic(b, loc, ValueRange{lhs, rhs, lhsZp, rhsZp}, init, maps,
                 iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
                   Value x = arith::SubIOp::create(
                       nb, l, arith::ExtSIOp::create(nb, l, i32, a[0]), a[2]);
                   Value y = arith::SubIOp::create(
                       nb, l, arith::ExtSIOp::create(nb, l, i32, a[1]), a[3]);
                   return Value(arith::AddIOp::create(
                       nb, l, a[4], arith::MulIOp::create(nb, l, x, y)));
                 });
}

/// Adds i32 partial sums exactly in f64.
Value addPartials(OpBuilder &b, Location loc, ArrayRef<Value> partials,
                  ShapedType resultType) {
  if (partials.size() == 1)
    return partials[0];
  auto f64Type = RankedTensorType::get(resultType.getShape(), b.getF64Type());
  Value total = zeroFilled(b, loc, resultType.getShape(), b.getF64Type());
  for (Value p : partials)
    total = elementwise(
        b, loc, {total, p}, f64Type,
        [&](OpBuilder &nb, Location l, ValueRange a) {
          return Value(arith::AddFOp::create(
              nb, l, a[0],
              arith::SIToFPOp::create(nb, l, nb.getF64Type(), a[1])));
        });
  return total;
}

/// The epilogue of the integer GEMMs: the rescale
/// (f32)((f64)sa * (f64)sb[c] * (f64)acc), then the bias epilogue (+ bias[c]
/// in f32, converted to the result type). `acc` is the i32 sum or the f64
/// sum of split-K pieces; `channelDim` is the result dim indexing sb and the
/// bias. With `checkAt`, a rescaled value beyond f32 is reported at that op.
Value rescale(OpBuilder &b, Location loc, const LayerTypes &types, Value acc,
              Value scaleA, Value scalesB, Value bias, int64_t channelDim,
              Operation *checkAt, AffineMap accMap = {}) {
  MLIRContext *ctx = b.getContext();
  ShapedType resultType = types.result;
  int64_t rank = resultType.getRank();
  BiasEpilogue epilogue;
  epilogue.extras = {scaleA, scalesB};
  // scaleA: one value, or one per row (dim 0 of a [M, N] result).
  epilogue.extraMaps = {
      cast<ShapedType>(scaleA.getType()).getRank() == 1
          ? AffineMap::get(rank, 0, {getAffineDimExpr(0, ctx)}, ctx)
          : AffineMap::get(rank, 0, {}, ctx),
      channelMap(scalesB, resultType, channelDim)};
  auto scaled = [&](OpBuilder &nb, Location l, ValueRange a) {
    Type f64 = nb.getF64Type(), f32 = nb.getF32Type();
    // i32 sums, f64 ones (K split), or f32 ones holding exact integers
    // (qconv2d's lowerAsExactF32).
    Value sum = a[0];
    if (a[0].getType().isF32())
      sum = arith::ExtFOp::create(nb, l, f64, a[0]);
    else if (!a[0].getType().isF64())
      sum = arith::SIToFPOp::create(nb, l, f64, a[0]);
    // Operands created one per statement (see sliceParams).
    Value sb = arith::ExtFOp::create(nb, l, f64, a[2]);
    Value sa = arith::ExtFOp::create(nb, l, f64, a[1]);
    Value s = arith::MulFOp::create(nb, l, sa, sb);
    Value wide = arith::MulFOp::create(nb, l, s, sum);
    Value v = arith::TruncFOp::create(nb, l, f32, wide);
    if (checkAt) {
      // mixrt_gemm_s8_f32 fails on a result beyond f32; so does this.
      Value inf =
          arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(INFINITY));
      Value overflow =
          arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                math::AbsFOp::create(nb, l, v), inf);
      emitCheck(nb, l, checkAt, overflow, MIXRT_STATUS_OUT_OF_RANGE,
                "int8 rescale overflows f32",
                linearIndex(nb, l, resultType.getShape()), wide);
    }
    return v;
  };
  epilogue.pre = scaled;
  epilogue.accMap = accMap;
  epilogue.biasType = b.getF32Type();
  epilogue.bias = bias;
  epilogue.channelDim = channelDim;
  Value result = addBias(b, loc, types, acc, epilogue);
  // Checked with one scale per tensor for A: mix-use-microkernels runs the
  // checked loop only when sa * max(sb) * 2^31 could reach f32's overflow.
  // Either way it may tile the loop and fuse a relu after it.
  if (cast<ShapedType>(scaleA.getType()).getRank() == 0)
    result.getDefiningOp()->setAttr(
        attr::kUkernel,
        b.getStringAttr(checkAt ? "checked_rescale" : "rescale"));
  return result;
}

/// [offset, offset + size) of dim `dim` of `value`.
Value sliceDim(OpBuilder &b, Location loc, Value value, int64_t dim,
               int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  offsets[dim] = b.getIndexAttr(offset);
  sizes[dim] = b.getIndexAttr(size);
  return tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes, strides);
}

/// Pieces [offset, size) of a dimension of `extent`, each at most `chunk`.
SmallVector<std::pair<int64_t, int64_t>> pieces(int64_t extent,
                                                std::optional<int64_t> chunk) {
  SmallVector<std::pair<int64_t, int64_t>> result;
  int64_t step = chunk ? std::max<int64_t>(*chunk, 1) : extent;
  for (int64_t o = 0; o < extent; o += step)
    result.push_back({o, std::min(step, extent - o)});
  return result;
}

/// The map of a per-channel zero point [1] or [N] indexed by loop `dim`.
AffineMap channelParamMap(Value v, int64_t loops, int64_t dim,
                          MLIRContext *ctx) {
  int64_t n = cast<ShapedType>(v.getType()).getDimSize(0);
  return AffineMap::get(
      loops, 0,
      {n == 1 ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(dim, ctx)},
      ctx);
}

/// qdense and qmatmul: lhs [..., K] x rhs [(...,) K, N], split in pieces of
/// at most `chunk` along K.
Value gemm(OpBuilder &b, Location loc, Value lhs, Value lhsZp, Value rhs,
           Value rhsZp, bool rhsBatched, const LayerTypes &types,
           std::optional<int64_t> chunk) {
  MLIRContext *ctx = b.getContext();
  ShapedType resultType = types.result;
  int64_t rank = resultType.getRank(), loops = rank + 1;
  int64_t lhsRank = cast<ShapedType>(lhs.getType()).getRank();
  int64_t rhsRank = cast<ShapedType>(rhs.getType()).getRank();
  int64_t k = cast<ShapedType>(lhs.getType()).getShape().back();
  ContractionMaps cmaps = contractionMaps(lhsRank, rank, rhsBatched, ctx);
  // The lhs zero point: one value, or one per row (loop 0 of a [M, K] lhs).
  bool perRow = cast<ShapedType>(lhsZp.getType()).getRank() == 1;
  SmallVector<AffineMap> maps = {
      cmaps.lhs, cmaps.rhs,
      perRow ? AffineMap::get(loops, 0, {getAffineDimExpr(0, ctx)}, ctx)
             : AffineMap::get(loops, 0, {}, ctx),
      cast<ShapedType>(rhsZp.getType()).getRank() == 0
          ? AffineMap::get(loops, 0, {}, ctx)
          : channelParamMap(rhsZp, loops, cmaps.nDim, ctx),
      cmaps.output};
  ArrayRef<utils::IteratorType> iterators = cmaps.iterators;
  SmallVector<Value> partials;
  for (auto [offset, size] : pieces(k, chunk)) {
    Value l =
        size == k ? lhs : sliceDim(b, loc, lhs, lhsRank - 1, offset, size);
    Value r =
        size == k ? rhs : sliceDim(b, loc, rhs, rhsRank - 2, offset, size);
    partials.push_back(intContraction(
        b, loc, l, r, lhsZp, rhsZp, buildInit(b, loc, types), maps, iterators));
  }
  // One piece of a constant-weight GEMM: mixrt's exact int8 microkernel
  // computes the same sums (mix-use-microkernels decides after
  // bufferization).
  if (partials.size() == 1 && !rhsBatched)
    partials[0].getDefiningOp()->setAttr(attr::kUkernel,
                                         b.getStringAttr("gemm_s8"));
  return addPartials(b, loc, partials, resultType);
}

std::optional<int64_t> chunkOf(std::optional<uint64_t> attr) {
  if (!attr)
    return std::nullopt;
  return static_cast<int64_t>(*attr);
}

struct QDenseLowering : LayerLoweringBase<QDenseOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(QDenseOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value acc =
        gemm(rewriter, loc, adaptor.getInput(), adaptor.getInputZeroPoint(),
             adaptor.getWeight(), adaptor.getWeightZeroPoints(),
             /*rhsBatched=*/false, types, chunkOf(op.getKChunk()));
    return rescale(rewriter, loc, types, acc, adaptor.getInputScale(),
                   adaptor.getWeightScales(), adaptor.getBias(),
                   types.result.getRank() - 1, checkedAt(op));
  }
};

struct QMatmulLowering : LayerLoweringBase<QMatmulOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(QMatmulOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value acc = gemm(rewriter, loc, adaptor.getLhs(), adaptor.getLhsZeroPoint(),
                     adaptor.getRhs(), adaptor.getRhsZeroPoint(),
                     /*rhsBatched=*/true, types, chunkOf(op.getKChunk()));
    return rescale(rewriter, loc, types, acc, adaptor.getLhsScale(),
                   adaptor.getRhsScale(), Value(), types.result.getRank() - 1,
                   checkedAt(op));
  }
};

struct QConv2DLowering : LayerLoweringBase<QConv2DOp> {
  using LayerLoweringBase::LayerLoweringBase;

  /// With microkernels, several groups (grouped or depthwise: the im2col
  /// GEMMs are one group only), a constant weight and constant weight zero
  /// points: the sums by mixrt's f32 convolution kernels when f32 holds them
  /// exactly, null otherwise. Every product (a - za) * (b - zb) and every
  /// partial sum of an output is an integer of magnitude at most
  /// max|a - za| * sum_k |b_k - zb| (its channel's weights); when that is
  /// at most 2^24 for every channel, each is exact in f32 whatever the
  /// order or blocking of the fma chain, so the f32 sums equal the i32 ones
  /// bit for bit on every kernel path. max|a - za| is exact for a constant
  /// zero point, else 255 (checkIntegerAccumulation, run before the
  /// lowering, accepts only zero points of mix.quantize, within int8). A 3x3
  /// depthwise layer always qualifies (9 * 255 * 255 < 2^24); a grouped
  /// one with symmetric weights up to K = C / groups * KH * KW = 518. The
  /// input is widened to f32 (a - za, one pass), the weight at compile time
  /// (b - zb: 4 bytes per weight instead of 1), and the +0 the f32 kernels
  /// pad with is a - za of the zero point the loops pad with.
  Value lowerAsExactF32(QConv2DOp op, OpAdaptor adaptor,
                        const LayerTypes &types,
                        ConversionPatternRewriter &rewriter) const {
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = cast<RankedTensorType>(adaptor.getWeight().getType());
    auto groups = static_cast<int64_t>(op.getGroups());
    DenseElementsAttr w, zw;
    if (!options.microkernels || groups <= 1 || op.getKChunk() ||
        !types.result.hasStaticShape() ||
        !matchPattern(adaptor.getWeight(), m_Constant(&w)) ||
        !matchPattern(adaptor.getWeightZeroPoints(), m_Constant(&zw)))
      return {};
    int64_t maxA = 255;
    DenseElementsAttr za;
    if (matchPattern(adaptor.getInputZeroPoint(), m_Constant(&za))) {
      int64_t z = za.getSplatValue<APInt>().getSExtValue();
      maxA = std::max(std::abs(127 - z), std::abs(-128 - z));
    }
    int64_t f = wType.getDimSize(0), k = wType.getNumElements() / f;
    SmallVector<APInt> wv(w.getValues<APInt>()), zv(zw.getValues<APInt>());
    std::vector<float> wide(static_cast<size_t>(f * k));
    // sum_k |b_k - zb| may be at most 2^24 / maxA (no product formed: no
    // overflow whatever the zero points of hand-written IR).
    const int64_t limit = (int64_t{1} << 24) / std::max<int64_t>(maxA, 1);
    for (int64_t fi = 0; fi < f; ++fi) {
      int64_t z = zv[zv.size() == 1 ? 0 : fi].getSExtValue(), sum = 0;
      for (int64_t ki = 0; ki < k; ++ki) {
        int64_t centered = wv[fi * k + ki].getSExtValue() - z;
        wide[fi * k + ki] = static_cast<float>(centered);
        sum += std::abs(centered);
        if (sum > limit)
          return {};
      }
    }
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value weight = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(wType.clone(f32), ArrayRef<float>(wide)));
    Value centered = elementwise(
        rewriter, loc,
        ValueRange{adaptor.getInput(), adaptor.getInputZeroPoint()},
        inType.clone(f32), [](OpBuilder &b, Location l, ValueRange a) {
          Type i32 = b.getI32Type();
          Value wideA = arith::ExtSIOp::create(b, l, i32, a[0]);
          Value diff = arith::SubIOp::create(b, l, wideA, a[1]);
          return Value(arith::SIToFPOp::create(b, l, b.getF32Type(), diff));
        });
    bool depthwise = groups == inType.getDimSize(1) && f == groups &&
                     wType.getDimSize(1) == 1;
    LayerTypes sums{RankedTensorType::get(types.result.getShape(), f32), f32};
    Value sum = unpaddedConvolution(
        rewriter, loc, centered, weight,
        {op.getStrides(), op.getDilations(), op.getPadding()}, groups, sums,
        depthwise);
    return rescale(rewriter, loc, types, sum, adaptor.getInputScale(),
                   adaptor.getWeightScales(), adaptor.getBias(),
                   /*channelDim=*/1, checkedAt(op));
  }

  /// With microkernels, one group, static shapes and no split of K: the
  /// exact i32 sums by one loop over the unpadded input (marked
  /// "conv2d_s8": mixrt_ukernel_conv2d_s8s8s32 packs the patches itself and
  /// writes NCHW), read in order by the rescale; null otherwise.
  Value lowerAsUnpaddedConv(QConv2DOp op, OpAdaptor adaptor,
                            const LayerTypes &types,
                            ConversionPatternRewriter &rewriter) const {
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = cast<RankedTensorType>(adaptor.getWeight().getType());
    if (!options.microkernels || op.getGroups() != 1 || op.getKChunk() ||
        !inType.hasStaticShape() || !wType.hasStaticShape() ||
        !types.result.hasStaticShape())
      return {};
    Location loc = op.getLoc();
    LayerTypes sums{
        RankedTensorType::get(types.result.getShape(), rewriter.getI32Type()),
        rewriter.getI32Type()};
    Value sum = unpaddedIntConvolution(
        rewriter, loc, adaptor.getInput(), adaptor.getInputZeroPoint(),
        adaptor.getWeight(), adaptor.getWeightZeroPoints(),
        {op.getStrides(), op.getDilations(), op.getPadding()}, sums);
    return rescale(rewriter, loc, types, sum, adaptor.getInputScale(),
                   adaptor.getWeightScales(), adaptor.getBias(),
                   /*channelDim=*/1, checkedAt(op));
  }

  Value lower(QConv2DOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    if (Value exact = lowerAsExactF32(op, adaptor, types, rewriter))
      return exact;
    if (Value conv = lowerAsUnpaddedConv(op, adaptor, types, rewriter))
      return conv;
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto wType = cast<ShapedType>(adaptor.getWeight().getType());
    // Padding reads the zero point: padded positions contribute 0.
    Value zp8 = arith::TruncIOp::create(
        rewriter, loc, rewriter.getI8Type(),
        scalarOf(rewriter, loc, adaptor.getInputZeroPoint()));
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(), zp8);
    int64_t perGroupIn = wType.getDimSize(1);
    ConvMaps conv = convMaps(op.getStrides(), op.getDilations(), op.getGroups(),
                             wType, ctx);
    SmallVector<AffineMap> maps = {
        conv.input, conv.weight, AffineMap::get(7, 0, {}, ctx),
        channelParamMap(adaptor.getWeightZeroPoints(), 7, 1, ctx), conv.output};
    // Split K by whole input channels (groups = 1, checked by the verifier).
    std::optional<int64_t> channelChunk;
    if (std::optional<int64_t> chunk = chunkOf(op.getKChunk()))
      channelChunk = std::max<int64_t>(
          1, *chunk / (wType.getDimSize(2) * wType.getDimSize(3)));
    SmallVector<Value> partials;
    for (auto [offset, size] : pieces(perGroupIn, channelChunk)) {
      bool whole = size == perGroupIn;
      Value in =
          whole ? input : sliceDim(rewriter, loc, input, 1, offset, size);
      Value w =
          whole ? adaptor.getWeight()
                : sliceDim(rewriter, loc, adaptor.getWeight(), 1, offset, size);
      partials.push_back(intContraction(
          rewriter, loc, in, w, adaptor.getInputZeroPoint(),
          adaptor.getWeightZeroPoints(), buildInit(rewriter, loc, types), maps,
          conv.iterators));
    }
    Value acc = addPartials(rewriter, loc, partials, types.result);
    return rescale(rewriter, loc, types, acc, adaptor.getInputScale(),
                   adaptor.getWeightScales(), adaptor.getBias(),
                   /*channelDim=*/1, checkedAt(op));
  }
};

} // namespace

void mix::lowering::populateQuantizedPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<QuantizeLowering, DequantizeLowering, QDenseLowering,
               QMatmulLowering, QConv2DLowering>(patterns.getContext(),
                                                 options);
}
