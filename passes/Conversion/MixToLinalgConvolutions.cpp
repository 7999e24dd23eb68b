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
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

struct Conv2DLowering : LayerLoweringBase<Conv2DOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(Conv2DOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
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
