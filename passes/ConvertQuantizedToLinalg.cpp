//===- ConvertQuantizedToLinalg.cpp - lowering of the int8 ops ------------===//
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
//             the bias in f32.
//
//===----------------------------------------------------------------------===//

#include "passes/ConvertMixToLinalg.h"
#include "passes/LinalgBuilders.h"

#include "dialect/MixOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cfloat>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

constexpr int32_t kInvalidArgument = 3; // MIXRT_STATUS_INVALID_ARGUMENT
constexpr int32_t kOutOfRange = 11;     // MIXRT_STATUS_OUT_OF_RANGE

Value f64Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
}

/// The scalar of a rank-0 tensor.
Value scalarOf(OpBuilder &b, Location loc, Value tensor0d) {
  return tensor::ExtractOp::create(b, loc, tensor0d, ValueRange{});
}

/// A rank-0 tensor holding `v`.
Value tensorOf(OpBuilder &b, Location loc, Value v) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
}

/// The type quantize computes in: f32 for 16-bit inputs (exact widening),
/// else the input type.
Type quantizeComputeType(OpBuilder &b, Type in) {
  return cast<FloatType>(in).getWidth() < 32 ? Type(b.getF32Type()) : in;
}

/// mixrt's parameters from the data: returns (scale f32, zero point i32).
std::pair<Value, Value> dynamicParams(OpBuilder &b, Location loc, Operation *op,
                                      Value input, QuantScheme scheme,
                                      bool checked) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<ShapedType>(input.getType());
  Type elem = type.getElementType();
  int64_t rank = type.getRank();
  // lo = min(min x, 0), hi = max(max x, 0): 0-initialised reductions (NaN
  // propagates; it is reported by the quantize itself).
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, {}, ctx),
                                 AffineMap::get(rank, 0, {}, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  Value zeros[2] = {zeroFilled(b, loc, {}, elem), zeroFilled(b, loc, {}, elem)};
  auto range = linalg::GenericOp::create(
      b, loc, TypeRange{zeros[0].getType(), zeros[1].getType()},
      ValueRange{input}, ValueRange{zeros[0], zeros[1]}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value lo = arith::MinimumFOp::create(nb, l, a[1], a[0]);
        Value hi = arith::MaximumFOp::create(nb, l, a[2], a[0]);
        linalg::YieldOp::create(nb, l, ValueRange{lo, hi});
      });
  Type f64 = b.getF64Type(), f32 = b.getF32Type(), i32 = b.getI32Type();
  Value lo = convertScalar(b, loc, scalarOf(b, loc, range.getResult(0)), f64);
  Value hi = convertScalar(b, loc, scalarOf(b, loc, range.getResult(1)), f64);
  Value zero = f64Const(b, loc, 0.0);
  Value wide;
  if (scheme == QuantScheme::symmetric)
    wide = arith::DivFOp::create(
        b, loc,
        arith::MaximumFOp::create(b, loc, arith::NegFOp::create(b, loc, lo),
                                  hi),
        f64Const(b, loc, 127.0));
  else
    wide = arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, hi, lo),
                                 f64Const(b, loc, 255.0));
  Value scale = arith::TruncFOp::create(b, loc, f32, wide);
  if (checked) {
    // mixrt rejects a scale beyond f32 (only reachable from f64 data).
    Value inf = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(INFINITY));
    Value bad = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                      math::AbsFOp::create(b, loc, scale), inf);
    emitCheck(b, loc, op, bad, kOutOfRange,
              "int8 quantization scale is not representable in f32",
              arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0), wide);
  }
  scale = arith::MaximumFOp::create(
      b, loc, scale,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(FLT_MIN)));
  Value zp = arith::ConstantIntOp::create(b, loc, i32, 0);
  if (scheme == QuantScheme::asymmetric) {
    // round_half_even(-128 - lo / scale), clamped to [-128, 127].
    Value q = arith::SubFOp::create(
        b, loc, f64Const(b, loc, -128.0),
        arith::DivFOp::create(b, loc, lo,
                              arith::ExtFOp::create(b, loc, f64, scale)));
    q = math::RoundEvenOp::create(b, loc, q);
    q = arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, q, f64Const(b, loc, -128.0)),
        f64Const(b, loc, 127.0));
    zp = arith::FPToSIOp::create(b, loc, i32, q);
  }
  // An all-zero tensor: scale 1, zero point 0.
  Value allZero = arith::AndIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lo, zero),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, hi, zero));
  scale = arith::SelectOp::create(
      b, loc, allZero,
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)), scale);
  zp = arith::SelectOp::create(b, loc, allZero,
                               arith::ConstantIntOp::create(b, loc, i32, 0), zp);
  return {scale, zp};
}

struct QuantizeLowering : OpConversionPattern<QuantizeOp> {
  QuantizeLowering(MLIRContext *ctx, bool checks)
      : OpConversionPattern(ctx), checks(checks) {}
  bool checks;
  LogicalResult
  matchAndRewrite(QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<ShapedType>(input.getType());
    Type compute = quantizeComputeType(rewriter, inType.getElementType());
    Value scale, zp;
    if (op.getScaleAttr()) {
      scale = arith::ConstantOp::create(rewriter, loc, op.getScaleAttr());
      zp = arith::ConstantOp::create(rewriter, loc, op.getZeroPointAttr());
    } else {
      std::tie(scale, zp) = dynamicParams(rewriter, loc, op, input,
                                          op.getScheme(),
                                          checks && op.getChecked());
    }
    bool symmetric = op.getScheme() == QuantScheme::symmetric;
    double qmin = symmetric ? -127.0 : -128.0, qmax = 127.0;
    Value scaleC = convertScalar(rewriter, loc, scale, compute);
    Value zpC = arith::SIToFPOp::create(rewriter, loc, compute, zp);
    auto outType = cast<ShapedType>(op.getResult().getType());
    bool checked = checks && op.getChecked();
    Value q = elementwise(
        rewriter, loc, input, outType,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = convertScalar(b, l, a[0], compute);
          Value r = math::RoundEvenOp::create(
              b, l, arith::DivFOp::create(b, l, x, scaleC));
          r = arith::AddFOp::create(b, l, r, zpC);
          auto c = [&](double v) {
            return arith::ConstantOp::create(b, l, b.getFloatAttr(compute, v));
          };
          // Clamp before narrowing; NaN (only from non-finite input, which
          // is reported when checked) becomes the zero point.
          Value clamped = arith::MinimumFOp::create(
              b, l, arith::MaximumFOp::create(b, l, r, c(qmin)), c(qmax));
          Value isNaN =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, r, r);
          clamped = arith::SelectOp::create(b, l, isNaN, zpC, clamped);
          if (checked) {
            Value inf = c(INFINITY);
            Value notFinite = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::UGE, math::AbsFOp::create(b, l, x),
                inf);
            emitCheck(b, l, op, notFinite, kInvalidArgument,
                      "non-finite value reaches an int8 quantize",
                      linearIndex(b, l, outType.getShape()),
                      convertScalar(b, l, x, b.getF64Type()));
          }
          return Value(
              arith::FPToSIOp::create(b, l, b.getI8Type(), clamped));
        });
    rewriter.replaceOp(op, {q, tensorOf(rewriter, loc, scale),
                            tensorOf(rewriter, loc, zp)});
    return success();
  }
};

/// The i32 contraction sum_k (lhs - lz) * (rhs - rz) with the given maps
/// (lhs, rhs, lhs zero point, rhs zero point, out) over `shape` + reduction
/// loops.
Value intContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                     Value lhsZp, Value rhsZp, ArrayRef<int64_t> shape,
                     ArrayRef<AffineMap> maps,
                     ArrayRef<utils::IteratorType> iterators) {
  Type i32 = b.getI32Type();
  return generic(b, loc, ValueRange{lhs, rhs, lhsZp, rhsZp}, shape, i32, 0.0,
                 maps, iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
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
    total = elementwise(b, loc, {total, p}, f64Type,
                        [&](OpBuilder &nb, Location l, ValueRange a) {
                          return Value(arith::AddFOp::create(
                              nb, l, a[0],
                              arith::SIToFPOp::create(nb, l, nb.getF64Type(),
                                                      a[1])));
                        });
  return total;
}

/// (f32)((f64)sa * (f64)sb[c] * (f64)acc) + bias[c], converted to the result
/// type; `channelDim` is the result dim indexing sb and the bias.
Value rescale(OpBuilder &b, Location loc, Value acc, Value scaleA,
              Value scalesB, Value bias, int64_t channelDim,
              ShapedType resultType) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  auto channelMap = [&](Value v) {
    int64_t n = cast<ShapedType>(v.getType()).getRank() == 0
                    ? 0
                    : cast<ShapedType>(v.getType()).getDimSize(0);
    if (cast<ShapedType>(v.getType()).getRank() == 0)
      return AffineMap::get(rank, 0, {}, ctx);
    return AffineMap::get(rank, 0,
                          {n == 1 && resultType.getDimSize(channelDim) != 1
                               ? getAffineConstantExpr(0, ctx)
                               : getAffineDimExpr(channelDim, ctx)},
                          ctx);
  };
  SmallVector<Value> inputs = {acc, scaleA, scalesB};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, {}, ctx),
                                 channelMap(scalesB)};
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(channelMap(bias));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Type outElem = resultType.getElementType();
  return generic(
      b, loc, inputs, resultType.getShape(), outElem, std::nullopt, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Type f64 = nb.getF64Type(), f32 = nb.getF32Type();
        Value sum = a[0].getType().isF64()
                        ? a[0]
                        : Value(arith::SIToFPOp::create(nb, l, f64, a[0]));
        Value s = arith::MulFOp::create(nb, l,
                                        arith::ExtFOp::create(nb, l, f64, a[1]),
                                        arith::ExtFOp::create(nb, l, f64, a[2]));
        Value v = arith::TruncFOp::create(
            nb, l, f32, arith::MulFOp::create(nb, l, s, sum));
        if (bias)
          v = arith::AddFOp::create(nb, l, v, convertScalar(nb, l, a[3], f32));
        return convertScalar(nb, l, v, outElem);
      });
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

/// qdense and qmatmul: lhs [..., K] x rhs [(...,) K, N].
Value gemm(OpBuilder &b, Location loc, Value lhs, Value lhsZp, Value rhs,
           Value rhsZp, bool rhsBatched, ShapedType resultType,
           std::optional<int64_t> chunk) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank(), loops = rank + 1;
  int64_t lhsRank = cast<ShapedType>(lhs.getType()).getRank();
  int64_t rhsRank = cast<ShapedType>(rhs.getType()).getRank();
  int64_t k = cast<ShapedType>(lhs.getType()).getShape().back();
  SmallVector<AffineMap> cmaps =
      contractionMaps(lhsRank, rank, rhsBatched, ctx);
  SmallVector<AffineMap> maps = {cmaps[0], cmaps[1],
                                 AffineMap::get(loops, 0, {}, ctx),
                                 cast<ShapedType>(rhsZp.getType()).getRank() == 0
                                     ? AffineMap::get(loops, 0, {}, ctx)
                                     : channelParamMap(rhsZp, loops, rank - 1,
                                                       ctx),
                                 cmaps[2]};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  SmallVector<Value> partials;
  for (auto [offset, size] : pieces(k, chunk)) {
    Value l = size == k ? lhs : sliceDim(b, loc, lhs, lhsRank - 1, offset, size);
    Value r = size == k ? rhs : sliceDim(b, loc, rhs, rhsRank - 2, offset, size);
    partials.push_back(intContraction(b, loc, l, r, lhsZp, rhsZp,
                                      resultType.getShape(), maps, iterators));
  }
  return addPartials(b, loc, partials, resultType);
}

std::optional<int64_t> chunkOf(std::optional<uint64_t> attr) {
  if (!attr)
    return std::nullopt;
  return static_cast<int64_t>(*attr);
}

struct QDenseLowering : OpConversionPattern<QDenseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QDenseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getType());
    Value acc = gemm(rewriter, loc, adaptor.getInput(),
                     adaptor.getInputZeroPoint(), adaptor.getWeight(),
                     adaptor.getWeightZeroPoints(), /*rhsBatched=*/false, type,
                     chunkOf(op.getKChunk()));
    rewriter.replaceOp(op, rescale(rewriter, loc, acc, adaptor.getInputScale(),
                                   adaptor.getWeightScales(),
                                   adaptor.getBias(), type.getRank() - 1,
                                   type));
    return success();
  }
};

struct QMatmulLowering : OpConversionPattern<QMatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QMatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getType());
    Value acc =
        gemm(rewriter, loc, adaptor.getLhs(), adaptor.getLhsZeroPoint(),
             adaptor.getRhs(), adaptor.getRhsZeroPoint(), /*rhsBatched=*/true,
             type, chunkOf(op.getKChunk()));
    rewriter.replaceOp(op, rescale(rewriter, loc, acc, adaptor.getLhsScale(),
                                   adaptor.getRhsScale(), Value(),
                                   type.getRank() - 1, type));
    return success();
  }
};

struct QConv2DLowering : OpConversionPattern<QConv2DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QConv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
    auto wType = cast<ShapedType>(adaptor.getWeight().getType());
    // Padding reads the zero point: padded positions contribute 0.
    Value zp8 = arith::TruncIOp::create(
        rewriter, loc, rewriter.getI8Type(),
        scalarOf(rewriter, loc, adaptor.getInputZeroPoint()));
    Value input =
        padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(), zp8);
    int64_t perGroupIn = wType.getDimSize(1);
    ConvMaps conv = convMaps(op.getStrides(), op.getDilations(),
                             op.getGroups(), wType, ctx);
    SmallVector<AffineMap> maps = {
        conv.input, conv.weight, AffineMap::get(7, 0, {}, ctx),
        channelParamMap(adaptor.getWeightZeroPoints(), 7, 1, ctx),
        conv.output};
    // Split K by whole input channels (groups = 1, checked by the verifier).
    std::optional<int64_t> channelChunk;
    if (std::optional<int64_t> chunk = chunkOf(op.getKChunk()))
      channelChunk = std::max<int64_t>(
          1, *chunk / (wType.getDimSize(2) * wType.getDimSize(3)));
    SmallVector<Value> partials;
    for (auto [offset, size] : pieces(perGroupIn, channelChunk)) {
      bool whole = size == perGroupIn;
      Value in = whole ? input : sliceDim(rewriter, loc, input, 1, offset, size);
      Value w = whole ? adaptor.getWeight()
                      : sliceDim(rewriter, loc, adaptor.getWeight(), 1, offset,
                                 size);
      partials.push_back(intContraction(
          rewriter, loc, in, w, adaptor.getInputZeroPoint(),
          adaptor.getWeightZeroPoints(), type.getShape(), maps,
          conv.iterators));
    }
    Value acc = addPartials(rewriter, loc, partials, type);
    rewriter.replaceOp(op, rescale(rewriter, loc, acc, adaptor.getInputScale(),
                                   adaptor.getWeightScales(),
                                   adaptor.getBias(), /*channelDim=*/1, type));
    return success();
  }
};

} // namespace

void mix::populateQuantizedToLinalgConversionPatterns(
    RewritePatternSet &patterns, bool checks) {
  patterns.add<QuantizeLowering>(patterns.getContext(), checks);
  patterns.add<QDenseLowering, QMatmulLowering, QConv2DLowering>(
      patterns.getContext());
}
