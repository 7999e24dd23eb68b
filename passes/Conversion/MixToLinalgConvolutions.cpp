//===- MixToLinalgConvolutions.cpp - conv2d to linalg ---------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Float conv2d (NCHW, strides, padding, dilation, groups): padding by
// clamped-index reads, one linalg.generic over (n, f, c, kh, kw, oh, ow) with
// the output row innermost and one fma per step in (c, kh, kw) order in the
// layer's accumulator type; then the bias epilogue.
//
// With microkernels, f32 activations and accumulator, an f32, f16 or bf16
// weight (f16/bf16 widened exactly to f32 on every call), and at least
// 64 output positions per image (or a weight computed at run time, or
// several groups, which the im2col GEMMs below do not take): the loop
// reads the unpadded input itself, like the depthwise one below (marked
// "conv2d_f32"), and mix-use-microkernels turns it into one call of
// mixrt_ukernel_conv2d_f32 (per image and group when there are several
// groups: a group is a convolution of its C / groups input channels into
// its F / groups outputs), which packs the patches block by block into the
// GEMM microkernel's layout with the weight [F, C*KH*KW] as the left-hand
// side: the output comes out in NCHW, no im2col buffer, no transposes. The
// bias epilogue stays a loop after it.
//
// Otherwise (fewer positions), with a constant f32, f16 or bf16 weight (f32
// activations and accumulator, one group): the same sums as GEMMs (im2col,
// im2colGemm), which
// mix-use-microkernels turns into calls of mixrt's microkernel. For each band
// of output rows, the patches [rows*OW, C*KH*KW] (k = (c*KH + kh)*KW + kw:
// the (c, kh, kw) order) times the weight transposed at compile time W^T
// [C*KH*KW, F], from +0 with one fma per k, give the band's rows of the
// [N*OH*OW, F] sums; the epilogue reads them transposed (NCHW) and adds the
// bias. Bit for bit the loops' result. A band's patches fit in 512 KiB (a
// core's L2 on current x86), so the copies stay in cache: before the bands,
// all patches of a layer were copied at once and a 3x3, 64 -> 64 convolution
// at 56x56 (7 MiB of patches) was no faster than the loops.
//
// f16/bf16 activations into an f32 accumulator take the same paths: the
// input is widened exactly to f32 first (one pass; the loops convert every
// tap the same way), so the sums are the same bits.
//
// Depthwise (groups == C == F, one input channel per group, C = 1 included;
// f32 activations and accumulator; f32, f16 or bf16 weight, widened exactly
// first): no padded copy of the input. The loop reads the unpadded input
// itself (tensor.extract at the clamped position, +0 selected outside: the
// same value the padded copy would hold, so the same fma chain from +0
// over (kh, kw) ascending, padded taps included), is marked
// "depthwise_f32" with its window (mix.ukernel_window: strides, dilations,
// padding), and mix-use-microkernels turns it into one call of
// mixrt_ukernel_depthwise_f32 on the unpadded input, which pads inside.
// The bias epilogue stays a loop after it. Grouped convolutions (1 < groups
// < C) with f16/bf16 weights widen them exactly first, as depthwise ones do.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "dialect/MixAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

/// The constant `weight` [F, K...] as [K, F] (MixToLinalgPatterns.h).
DenseElementsAttr mix::lowering::transposedWeight(Value weight) {
  DenseElementsAttr value;
  if (!matchPattern(weight, m_Constant(&value)))
    return {};
  auto type = cast<ShapedType>(value.getType());
  int64_t f = type.getDimSize(0), k = type.getNumElements() / f;
  Type elem = type.getElementType();
  auto result = RankedTensorType::get({k, f}, elem);
  if (value.isSplat())
    return value.reshape(RankedTensorType::get({k * f}, elem))
        .resizeSplat(result);
  if (elem.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  size_t bytes = elem.getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = value.getRawData();
  std::vector<char> out(raw.size());
  for (int64_t r = 0; r < f; ++r)
    for (int64_t c = 0; c < k; ++c)
      std::copy_n(raw.begin() + (r * k + c) * bytes, bytes,
                  out.begin() + (c * f + r) * bytes);
  return DenseElementsAttr::getFromRawBuffer(result, out);
}

Im2colConv mix::lowering::Im2colConv::of(Value input, ArrayRef<int64_t> strides,
                                         ArrayRef<int64_t> dilations,
                                         ShapedType weightType,
                                         ShapedType resultType, Type accElem) {
  Im2colConv conv;
  conv.input = input;
  conv.strides = strides;
  conv.dilations = dilations;
  conv.kh = weightType.getDimSize(2);
  conv.kw = weightType.getDimSize(3);
  conv.f = resultType.getDimSize(1);
  conv.oh = resultType.getDimSize(2);
  conv.ow = resultType.getDimSize(3);
  conv.accElem = accElem;
  return conv;
}

Value mix::lowering::im2colGemm(
    OpBuilder &b, Location loc, const Im2colConv &conv,
    function_ref<Value(OpBuilder &, Location, Value, Value)> gemm) {
  MLIRContext *ctx = b.getContext();
  auto inType = cast<RankedTensorType>(conv.input.getType());
  Type elem = inType.getElementType();
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
          width = inType.getDimSize(3);
  int64_t oh = conv.oh, ow = conv.ow, kh = conv.kh, kw = conv.kw;
  int64_t k = c * kh * kw;
  int64_t rowBytes = ow * k * ((elem.getIntOrFloatBitWidth() + 7) / 8);
  // The band: the most output rows (a divisor of OH, so every band has one
  // static shape) whose patches fit.
  int64_t rows = 1;
  for (int64_t r = oh; r >= 1; --r)
    if (oh % r == 0 && r * rowBytes <= conv.maxTileBytes) {
      rows = r;
      break;
    }
  int64_t tile = rows * ow;
  // The input rows a band reads.
  int64_t span =
      (rows - 1) * conv.strides[0] + (kh - 1) * conv.dilations[0] + 1;

  auto index = [&](OpBuilder &nb, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(nb, loc, v);
  };
  Value scratch = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{1, rows, ow, c, kh, kw}, elem);
  Value acc = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{n * oh * ow, conv.f}, conv.accElem);
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // Patches [1, rows, OW, C, KH, KW] of a band of one image.
  AffineMap read = AffineMap::get(
      6, 0,
      {d(0), d(3), d(1) * conv.strides[0] + d(4) * conv.dilations[0],
       d(2) * conv.strides[1] + d(5) * conv.dilations[1]},
      ctx);
  SmallVector<utils::IteratorType> parallel6(6, utils::IteratorType::parallel);

  auto images = scf::ForOp::create(
      b, loc, index(b, 0), index(b, n), index(b, 1), ValueRange{scratch, acc},
      [&](OpBuilder &ib, Location, Value image, ValueRange imageArgs) {
        auto bands = scf::ForOp::create(
            ib, loc, index(ib, 0), index(ib, oh / rows), index(ib, 1),
            imageArgs,
            [&](OpBuilder &bb, Location, Value band, ValueRange args) {
              // The band's first output row, its first input row and its
              // first row of the accumulator.
              Value row0 =
                  arith::MulIOp::create(bb, loc, band, index(bb, rows));
              Value inRow0 = arith::MulIOp::create(bb, loc, row0,
                                                   index(bb, conv.strides[0]));
              Value accRow0 = arith::MulIOp::create(
                  bb, loc,
                  arith::AddIOp::create(
                      bb, loc,
                      arith::MulIOp::create(bb, loc, image, index(bb, oh)),
                      row0),
                  index(bb, ow));
              SmallVector<OpFoldResult> offsets = {image, bb.getIndexAttr(0),
                                                   inRow0, bb.getIndexAttr(0)};
              SmallVector<OpFoldResult> sizes = {
                  bb.getIndexAttr(1), bb.getIndexAttr(c), bb.getIndexAttr(span),
                  bb.getIndexAttr(width)};
              SmallVector<OpFoldResult> ones(4, bb.getIndexAttr(1));
              Value in = tensor::ExtractSliceOp::create(bb, loc, conv.input,
                                                        offsets, sizes, ones);
              Value patches = generic(
                  bb, loc, ValueRange{in}, args[0],
                  {read, AffineMap::getMultiDimIdentityMap(6, ctx)}, parallel6,
                  [](OpBuilder &, Location, ValueRange a) { return a[0]; });
              Value lhs = tensor::CollapseShapeOp::create(
                  bb, loc, RankedTensorType::get({tile, k}, elem), patches,
                  SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
              SmallVector<OpFoldResult> accOffsets = {accRow0,
                                                      bb.getIndexAttr(0)};
              SmallVector<OpFoldResult> accSizes = {bb.getIndexAttr(tile),
                                                    bb.getIndexAttr(conv.f)};
              SmallVector<OpFoldResult> ones2(2, bb.getIndexAttr(1));
              Value accTile = tensor::ExtractSliceOp::create(
                  bb, loc, args[1], accOffsets, accSizes, ones2);
              Value zero = zeroConstant(bb, loc, conv.accElem);
              Value init =
                  linalg::FillOp::create(bb, loc, zero, accTile).getResult(0);
              Value sum = gemm(bb, loc, lhs, init);
              Value updated = tensor::InsertSliceOp::create(
                  bb, loc, sum, args[1], accOffsets, accSizes, ones2);
              scf::YieldOp::create(bb, loc, ValueRange{patches, updated});
            });
        scf::YieldOp::create(ib, loc, bands.getResults());
      });
  return images.getResult(1);
}

/// The input element of the current (n, f, c, kh, kw, oh, ow) of a loop
/// over convMaps' iteration space: the input at the clamped position,
/// `outside` where the tap is padding.
static Value unpaddedTap(OpBuilder &b, Location l, Value input,
                         const ConvWindow &window, int64_t groups,
                         int64_t perGroupOut, int64_t perGroupIn,
                         bool depthwise, Value outside) {
  auto inType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> s = window.strides, d = window.dilations,
                    pad = window.padding;
  // One operand op per statement (host-compiler independent IR).
  auto index = [&](int64_t i) {
    return arith::ConstantIndexOp::create(b, l, i);
  };
  Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
  // The input channel: f (depthwise), c (one group), or c of the group of
  // f: f / (F / groups) * (C / groups) + c (convMaps').
  Value image = linalg::IndexOp::create(b, l, 0);
  Value channel = linalg::IndexOp::create(b, l, depthwise ? 1 : 2);
  if (!depthwise && groups > 1) {
    Value f = linalg::IndexOp::create(b, l, 1);
    Value g = arith::DivUIOp::create(b, l, f, index(perGroupOut));
    Value first = arith::MulIOp::create(b, l, g, index(perGroupIn));
    channel = arith::AddIOp::create(b, l, first, channel);
  }
  SmallVector<Value> at = {image, channel};
  for (int64_t i = 0; i < 2; ++i) {
    // oh * s + kh * d - before (ow, kw for the columns).
    Value o = linalg::IndexOp::create(b, l, 5 + i);
    Value k = linalg::IndexOp::create(b, l, 3 + i);
    Value os = arith::MulIOp::create(b, l, o, index(s[i]));
    Value kd = arith::MulIOp::create(b, l, k, index(d[i]));
    Value sumPos = arith::AddIOp::create(b, l, os, kd);
    Value pos = arith::SubIOp::create(b, l, sumPos, index(pad[i]));
    int64_t size = inType.getDimSize(2 + i);
    Value ge =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, pos, index(0));
    Value lt = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, pos,
                                     index(size));
    Value both = arith::AndIOp::create(b, l, ge, lt);
    inside = arith::AndIOp::create(b, l, inside, both);
    Value low = arith::MaxSIOp::create(b, l, pos, index(0));
    at.push_back(arith::MinSIOp::create(b, l, low, index(size - 1)));
  }
  Value v = tensor::ExtractOp::create(b, l, input, at);
  return arith::SelectOp::create(b, l, inside, v, outside);
}

/// Marks a loop over the unpadded input for mix-use-microkernels.
static void markUnpadded(OpBuilder &b, Value sum, StringRef kind,
                         const ConvWindow &window) {
  ArrayRef<int64_t> s = window.strides, d = window.dilations,
                    pad = window.padding;
  Operation *loop = sum.getDefiningOp();
  loop->setAttr(attr::kUkernel, b.getStringAttr(kind));
  loop->setAttr(attr::kUkernelWindow,
                b.getDenseI64ArrayAttr(
                    {s[0], s[1], d[0], d[1], pad[0], pad[1], pad[2], pad[3]}));
}

/// The loop over the unpadded f32 input (LayerLowering.h).
Value mix::lowering::unpaddedConvolution(OpBuilder &rewriter, Location loc,
                                         Value input, Value weight,
                                         const ConvWindow &window,
                                         int64_t groups,
                                         const LayerTypes &types,
                                         bool depthwise) {
  auto wType = cast<ShapedType>(weight.getType());
  ConvMaps conv = convMaps(window.strides, window.dilations, groups, wType,
                           rewriter.getContext());
  int64_t perGroupOut = wType.getDimSize(0) / groups,
          perGroupIn = wType.getDimSize(1);
  Value zero = zeroConstant(rewriter, loc, types.acc);
  Value sum =
      generic(rewriter, loc, ValueRange{weight},
              buildInit(rewriter, loc, types), {conv.weight, conv.output},
              conv.iterators, [&](OpBuilder &b, Location l, ValueRange a) {
                Value x = unpaddedTap(b, l, input, window, groups, perGroupOut,
                                      perGroupIn, depthwise, zero);
                return Value(math::FmaOp::create(b, l, x, a[0], a[1]));
              });
  markUnpadded(rewriter, sum, depthwise ? "depthwise_f32" : "conv2d_f32",
               window);
  return sum;
}

/// The loop over the unpadded int8 input (LayerLowering.h).
Value mix::lowering::unpaddedIntConvolution(OpBuilder &rewriter, Location loc,
                                            Value input, Value inputZp,
                                            Value weight, Value weightZps,
                                            const ConvWindow &window,
                                            const LayerTypes &types) {
  MLIRContext *ctx = rewriter.getContext();
  auto wType = cast<ShapedType>(weight.getType());
  ConvMaps conv = convMaps(window.strides, window.dilations, 1, wType, ctx);
  int64_t zws = cast<ShapedType>(weightZps.getType()).getDimSize(0);
  AffineMap zwMap = AffineMap::get(
      7, 0,
      {zws == 1 ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(1, ctx)},
      ctx);
  Type i32 = rewriter.getI32Type(), i8 = rewriter.getI8Type();
  Value sum =
      generic(rewriter, loc, ValueRange{weight, inputZp, weightZps},
              buildInit(rewriter, loc, types),
              {conv.weight, AffineMap::get(7, 0, {}, ctx), zwMap, conv.output},
              conv.iterators, [&](OpBuilder &b, Location l, ValueRange a) {
                // One operand op per statement (host-compiler independent IR).
                Value padValue = arith::TruncIOp::create(b, l, i8, a[1]);
                Value tap =
                    unpaddedTap(b, l, input, window, 1, 0, 0, false, padValue);
                Value wideX = arith::ExtSIOp::create(b, l, i32, tap);
                Value x = arith::SubIOp::create(b, l, wideX, a[1]);
                Value wideW = arith::ExtSIOp::create(b, l, i32, a[0]);
                Value w = arith::SubIOp::create(b, l, wideW, a[2]);
                Value product = arith::MulIOp::create(b, l, x, w);
                return Value(arith::AddIOp::create(b, l, a[3], product));
              });
  markUnpadded(rewriter, sum, "conv2d_s8", window);
  return sum;
}

namespace {

/// Whether the f32 kernels can take an input of element type `elem` into
/// the accumulator `acc`: f32, or f16/bf16 widened exactly to f32 first
/// (the loops' own per-tap conversion, done once per element).
bool f32KernelInput(Type elem, Type acc) {
  return elem.isF32() || (acc.isF32() && (elem.isF16() || elem.isBF16()));
}

/// `input` in f32: itself, or widened exactly from f16/bf16.
Value inputAsF32(OpBuilder &b, Location loc, Value input) {
  auto type = cast<ShapedType>(input.getType());
  if (type.getElementType().isF32())
    return input;
  return convertTensor(b, loc, input, type.clone(b.getF32Type()));
}

struct Conv2DLowering : LayerLoweringBase<Conv2DOp> {
  using LayerLoweringBase::LayerLoweringBase;

  /// The convolution as an im2col GEMM for the microkernels, or null when it
  /// does not qualify (see the file comment).
  Value lowerAsGemm(Conv2DOp op, OpAdaptor adaptor, const LayerTypes &types,
                    ConversionPatternRewriter &rewriter) const {
    Type f32 = rewriter.getF32Type();
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = cast<RankedTensorType>(adaptor.getWeight().getType());
    Type wElem = wType.getElementType();
    if (!options.microkernels || op.getGroups() != 1 || types.acc != f32 ||
        !f32KernelInput(inType.getElementType(), types.acc) ||
        !types.result.hasStaticShape() ||
        !(wElem.isF32() || wElem.isF16() || wElem.isBF16()))
      return {};
    ArrayRef<int64_t> out = types.result.getShape(); // N, F, OH, OW
    DenseElementsAttr wT = transposedWeight(adaptor.getWeight());
    if (!wT)
      return {};
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Im2colConv conv = Im2colConv::of(
        padSpatial(rewriter, loc, inputAsF32(rewriter, loc, adaptor.getInput()),
                   op.getPadding(), zeroConstant(rewriter, loc, f32)),
        op.getStrides(), op.getDilations(), wType, types.result, f32);
    Value rhs = arith::ConstantOp::create(rewriter, loc, wT);
    Value sum = im2colGemm(
        rewriter, loc, conv,
        [&](OpBuilder &b, Location l, Value lhs, Value init) {
          Value tile = contraction(b, l, lhs, rhs, /*rhsBatched=*/false, init);
          tile.getDefiningOp()->setAttr(attr::kUkernel,
                                        b.getStringAttr("gemm_f32"));
          return tile;
        });
    // [N*OH*OW, F] -> [N, OH, OW, F] -> NCHW, + bias[f] in f32 (after the
    // sum, as the loops add it), converted to the result type.
    Value rows = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({out[0], out[2], out[3], out[1]}, f32), sum,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineMap fromNhwc = AffineMap::get(4, 0, {d(0), d(2), d(3), d(1)}, ctx);
    BiasEpilogue epilogue;
    epilogue.biasType = f32;
    epilogue.bias = adaptor.getBias();
    epilogue.channelDim = 1;
    epilogue.accMap = fromNhwc;
    return addBias(rewriter, loc, types, rows, epilogue);
  }

  /// Whether the convolution (any number of groups; depthwise ones are
  /// taken first) has an f32 weight (or an f16/bf16 one, widened first),
  /// which mixrt_ukernel_conv2d_f32
  /// computes, one call per group (see the file comment): at least 64
  /// output positions per image, a weight computed at run time, or several
  /// groups (the im2col GEMMs are one group only). Below
  /// that (a 7x7 plane) a block of patches has a few panels against all F
  /// rows of the weight, and the im2col GEMM, whose rows are the positions,
  /// is faster (bench_conv, 1x1 512 -> 2048 at 7x7: 0.67 of oneDNN against
  /// 0.82).
  bool isMicrokernelConv(Conv2DOp op, OpAdaptor adaptor,
                         const LayerTypes &types) const {
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = cast<RankedTensorType>(adaptor.getWeight().getType());
    // f16/bf16 weights are widened exactly first, on every call (as the
    // depthwise path does): F * C/groups * KH * KW conversions, little
    // beside the convolution, and the object keeps them in 16 bits. (With
    // one group they took the im2col GEMMs before, which pack them as they
    // are: the f16 MobileNet-V2 stack ran 2.14 ms against 1.42-1.45 now.)
    Type wElem = wType.getElementType();
    bool weightOk = wElem.isF32() || wElem.isF16() || wElem.isBF16();
    if (!(options.microkernels && types.acc.isF32() &&
          f32KernelInput(inType.getElementType(), types.acc) &&
          inType.hasStaticShape() && wType.hasStaticShape() &&
          types.result.hasStaticShape() && weightOk))
      return false;
    ArrayRef<int64_t> out = types.result.getShape(); // N, F, OH, OW
    // Several groups: the im2col GEMMs are one group only, so a small plane
    // would otherwise stay loops.
    return out[2] * out[3] >= 64 || op.getGroups() > 1 ||
           !matchPattern(adaptor.getWeight(), m_Constant());
  }

  /// Whether the convolution is a depthwise one the microkernel computes
  /// (see the file comment).
  bool isMicrokernelDepthwise(Conv2DOp op, OpAdaptor adaptor,
                              const LayerTypes &types) const {
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto wType = cast<RankedTensorType>(adaptor.getWeight().getType());
    Type wElem = wType.getElementType();
    auto groups = static_cast<int64_t>(op.getGroups());
    return options.microkernels && types.acc.isF32() &&
           f32KernelInput(inType.getElementType(), types.acc) &&
           inType.hasStaticShape() && wType.hasStaticShape() &&
           types.result.hasStaticShape() && groups == inType.getDimSize(1) &&
           wType.getDimSize(0) == groups && wType.getDimSize(1) == 1 &&
           (wElem.isF32() || wElem.isF16() || wElem.isBF16());
  }

  Value lower(Conv2DOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    bool depthwise = isMicrokernelDepthwise(op, adaptor, types);
    bool unpadded = depthwise || isMicrokernelConv(op, adaptor, types);
    if (!unpadded)
      if (Value gemm = lowerAsGemm(op, adaptor, types, rewriter))
        return gemm;
    Location loc = op.getLoc();
    Value weight = adaptor.getWeight();
    auto wType = cast<ShapedType>(weight.getType());
    if (unpadded && !wType.getElementType().isF32())
      // f16/bf16 weights widened exactly on every call (the loops' own
      // conversion).
      weight = convertTensor(rewriter, loc, weight,
                             wType.clone(rewriter.getF32Type()));
    ConvMaps conv = convMaps(op.getStrides(), op.getDilations(), op.getGroups(),
                             wType, rewriter.getContext());
    Type acc = types.acc;
    if (unpadded) {
      Value sum = unpaddedConvolution(
          rewriter, loc, inputAsF32(rewriter, loc, adaptor.getInput()), weight,
          {op.getStrides(), op.getDilations(), op.getPadding()},
          static_cast<int64_t>(op.getGroups()), types, depthwise);
      BiasEpilogue epilogue;
      epilogue.biasType = acc;
      epilogue.bias = adaptor.getBias();
      epilogue.channelDim = 1;
      return addBias(rewriter, loc, types, sum, epilogue);
    }
    Type inElem =
        cast<ShapedType>(adaptor.getInput().getType()).getElementType();
    Value input = padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(),
                             zeroConstant(rewriter, loc, inElem));
    Value sum = generic(rewriter, loc, ValueRange{input, weight},
                        buildInit(rewriter, loc, types),
                        {conv.input, conv.weight, conv.output}, conv.iterators,
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          // One operand op per statement (host-compiler
                          // independent IR).
                          Value w = convertScalar(b, l, a[1], acc);
                          Value in = convertScalar(b, l, a[0], acc);
                          return Value(math::FmaOp::create(b, l, in, w, a[2]));
                        });
    BiasEpilogue epilogue;
    epilogue.biasType = acc;
    epilogue.bias = adaptor.getBias();
    epilogue.channelDim = 1;
    return addBias(rewriter, loc, types, sum, epilogue);
  }
};

} // namespace

void mix::lowering::populateConvolutionPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<Conv2DLowering>(patterns.getContext(), options);
}
