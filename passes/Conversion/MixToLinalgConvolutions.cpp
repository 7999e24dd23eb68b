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
// With microkernels (f32 activations and accumulator, one group, a constant
// weight): the same sums as one GEMM (im2col), which mix-use-microkernels
// turns into a call of mixrt's microkernel. The patches P [N*OH*OW, C*KH*KW]
// (k = (c*KH + kh)*KW + kw: the (c, kh, kw) order) times the weight
// transposed at compile time W^T [C*KH*KW, F], from +0 with one fma per k,
// plus the bias, gives the output as [N*OH*OW, F]; one transposing copy makes
// it NCHW. Bit for bit the loops' result. Only while the patches fit in
// 2 MiB (a core's L2 on current x86): measured with mix-bench on an AVX-512
// core, the GEMM form was 3-17x faster than the loops for 1x1 and 3x3
// convolutions of 16-128 channels at 14x14 to 28x28, but no faster for 3x3,
// 64 -> 64 at 56x56 (7 MiB of patches: the copies go to memory). Tiling the
// patches along the output rows would lift the limit.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "dialect/MixAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

/// The constant `weight` [F, K...] (K... flattened to K) transposed to
/// [K, F], or null if it is not a constant of byte-sized elements.
DenseElementsAttr transposedWeight(Value weight) {
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
        inType.getElementType() != f32 || !types.result.hasStaticShape() ||
        !(wElem.isF32() || wElem.isF16() || wElem.isBF16()))
      return {};
    ArrayRef<int64_t> out = types.result.getShape(); // N, F, OH, OW
    int64_t n = out[0], f = out[1], oh = out[2], ow = out[3];
    int64_t c = wType.getDimSize(1), kh = wType.getDimSize(2),
            kw = wType.getDimSize(3);
    int64_t m = n * oh * ow, k = c * kh * kw;
    constexpr int64_t kMaxPatchBytes = int64_t{2} << 20;
    if (m * k * 4 > kMaxPatchBytes)
      return {};
    DenseElementsAttr wT = transposedWeight(adaptor.getWeight());
    if (!wT)
      return {};
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations();
    Value input = padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(),
                             zeroConstant(rewriter, loc, f32));
    // Patches [N, OH, OW, C, KH, KW] over the same loops.
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineMap read =
        AffineMap::get(6, 0,
                       {d(0), d(3), d(1) * strides[0] + d(4) * dilations[0],
                        d(2) * strides[1] + d(5) * dilations[1]},
                       ctx);
    SmallVector<utils::IteratorType> parallel6(6,
                                               utils::IteratorType::parallel);
    Value patches = generic(
        rewriter, loc, ValueRange{input}, {n, oh, ow, c, kh, kw}, f32,
        std::nullopt, {read, AffineMap::getMultiDimIdentityMap(6, ctx)},
        parallel6, [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    Value lhs = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({m, k}, f32), patches,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
    Value rhs = arith::ConstantOp::create(rewriter, loc, wT);
    LayerTypes gemmTypes{RankedTensorType::get({m, f}, f32), f32};
    Value sum = contraction(rewriter, loc, lhs, rhs, /*rhsBatched=*/false,
                            buildInit(rewriter, loc, gemmTypes));
    sum.getDefiningOp()->setAttr(attr::kUkernel,
                                 rewriter.getStringAttr("gemm_f32"));
    BiasEpilogue epilogue;
    epilogue.biasType = f32;
    epilogue.bias = adaptor.getBias();
    epilogue.channelDim = 1;
    Value biased = addBias(rewriter, loc, gemmTypes, sum, epilogue);
    if (epilogue.bias &&
        cast<ShapedType>(epilogue.bias.getType()).getElementType() == f32)
      biased.getDefiningOp()->setAttr(attr::kUkernelBias,
                                      rewriter.getUnitAttr());
    // [N*OH*OW, F] -> [N, OH, OW, F] -> NCHW, converted to the result type.
    Value rows = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({n, oh, ow, f}, f32), biased,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    AffineMap fromNhwc = AffineMap::get(4, 0, {d(0), d(2), d(3), d(1)}, ctx);
    Type outElem = types.out();
    return generic(
        rewriter, loc, ValueRange{rows}, out, outElem, std::nullopt,
        {fromNhwc, AffineMap::getMultiDimIdentityMap(4, ctx)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          return convertScalar(b, l, a[0], outElem);
        });
  }

  Value lower(Conv2DOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    if (Value gemm = lowerAsGemm(op, adaptor, types, rewriter))
      return gemm;
    Location loc = op.getLoc();
    auto wType = cast<ShapedType>(adaptor.getWeight().getType());
    Type inElem =
        cast<ShapedType>(adaptor.getInput().getType()).getElementType();
    Value input = padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(),
                             zeroConstant(rewriter, loc, inElem));
    ConvMaps conv = convMaps(op.getStrides(), op.getDilations(), op.getGroups(),
                             wType, rewriter.getContext());
    Type acc = types.acc;
    Value sum = generic(rewriter, loc, ValueRange{input, adaptor.getWeight()},
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
