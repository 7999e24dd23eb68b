//===- MixToLinalgUpsampling.cpp - conv_transpose2d and resize to linalg --===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// conv_transpose2d in gather form: one linalg.generic over (n, f, oh, ow)
// with reductions over (c, kh, kw) of the group; each step reads the input
// pixel that scatters onto (oh, ow) through (kh, kw), if there is one
// (oh + top - kh * dilation divisible by the stride, inside the input), with
// tensor.extract. The sum is kept in the accumulator type, in (c, kh, kw)
// order, and ends with the bias epilogue of conv2d.
//
// resize: one output-only generic; each element computes its input
// coordinates in f64 (ONNX's reference does), then reads one input element
// (nearest) or interpolates four (linear) or sixteen (cubic) in the
// activations type.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "dialect/ResizeTap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

struct ConvTranspose2DLowering : LayerLoweringBase<ConvTranspose2DOp> {
  using LayerLoweringBase::LayerLoweringBase;
  Value lower(ConvTranspose2DOp op, OpAdaptor adaptor, const LayerTypes &types,
              ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type acc = types.acc;
    Value input = adaptor.getInput();
    auto inType = cast<ShapedType>(input.getType());
    auto wType = cast<ShapedType>(adaptor.getWeight().getType());
    int64_t groups = static_cast<int64_t>(op.getGroups());
    int64_t cg = inType.getDimSize(1) / groups; // input channels per group
    int64_t fg = wType.getDimSize(1);           // output channels per group
    int64_t h = inType.getDimSize(2), w = inType.getDimSize(3);
    ArrayRef<int64_t> s = op.getStrides(), d = op.getDilations(),
                      p = op.getPadding();
    auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // Loops: n, f, oh, ow (parallel), c, kh, kw (reduction). The weight is
    // read at [group(f) * cg + c, f mod fg, kh, kw]; c's extent comes from a
    // shape-only operand.
    AffineExpr group = dim(1).floorDiv(fg);
    Value extent = tensor::EmptyOp::create(
        rewriter, loc,
        ArrayRef<int64_t>{cg, wType.getDimSize(2), wType.getDimSize(3)}, acc);
    Value sum = generic(
        rewriter, loc, ValueRange{adaptor.getWeight(), extent},
        types.result.getShape(), acc, 0.0,
        {AffineMap::get(
             7, 0, {group * cg + dim(4), dim(1) % fg, dim(5), dim(6)}, ctx),
         AffineMap::get(7, 0, {dim(4), dim(5), dim(6)}, ctx),
         AffineMap::get(7, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)},
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::reduction, utils::IteratorType::reduction,
         utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          auto index = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v).getResult();
          };
          auto at = [&](unsigned i) {
            return linalg::IndexOp::create(b, l, i).getResult();
          };
          // The input position scattering onto output o through kernel
          // tap k: (o + pad - k * dilation) / stride, when exact and inside.
          Value valid;
          auto source = [&](unsigned o, unsigned k, int64_t i) {
            Value tap = arith::MulIOp::create(b, l, at(k), index(d[i]));
            Value shifted = arith::AddIOp::create(b, l, at(o), index(p[i]));
            Value num = arith::SubIOp::create(b, l, shifted, tap);
            Value rem = arith::RemSIOp::create(b, l, num, index(s[i]));
            Value pos = arith::DivSIOp::create(b, l, num, index(s[i]));
            int64_t size = i == 0 ? h : w;
            Value ok = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, num,
                                      index(0)),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, rem,
                                      index(0)));
            ok = arith::AndIOp::create(
                b, l, ok,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, pos,
                                      index(size)));
            valid =
                valid ? arith::AndIOp::create(b, l, valid, ok).getResult() : ok;
            // A safe read when not valid.
            Value clamped = arith::MaxSIOp::create(b, l, pos, index(0));
            return arith::MinSIOp::create(b, l, clamped, index(size - 1))
                .getResult();
          };
          Value row = source(2, 5, 0);
          Value col = source(3, 6, 1);
          Value channel = arith::AddIOp::create(
              b, l,
              arith::MulIOp::create(
                  b, l, arith::DivSIOp::create(b, l, at(1), index(fg)),
                  index(cg)),
              at(4));
          Value x = tensor::ExtractOp::create(
              b, l, input, ValueRange{at(0), channel, row, col});
          Value xw = convertScalar(b, l, x, acc);
          Value ww = convertScalar(b, l, a[0], acc);
          Value product = arith::MulFOp::create(b, l, xw, ww);
          Value next = arith::AddFOp::create(b, l, a[2], product);
          return arith::SelectOp::create(b, l, valid, next, a[2]);
        });
    BiasEpilogue e;
    e.biasType = acc;
    e.bias = adaptor.getBias();
    e.channelDim = 1;
    return addBias(rewriter, loc, types, sum, e);
  }
};

struct ResizeLowering : MixLoweringPattern<ResizeOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getType());
    Type out = type.getElementType();
    Value input = adaptor.getInput();
    auto inType = cast<ShapedType>(input.getType());
    Type elem = inType.getElementType();
    ArrayRef<double> scales = op.getScales();
    StringRef coordinates = op.getCoordinateMode();
    StringRef nearestMode = op.getNearestMode();
    bool linear = op.getMode() == "linear";
    bool cubic = op.getMode() == "cubic";
    Value result = generic(
        rewriter, loc, ValueRange{}, type.getShape(), out, std::nullopt,
        {AffineMap::getMultiDimIdentityMap(4, getContext())},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Type f64 = b.getF64Type();
          auto real = [&](double v) {
            return arith::ConstantOp::create(b, l, b.getFloatAttr(f64, v))
                .getResult();
          };
          auto index = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v).getResult();
          };
          auto toIndex = [&](Value v) {
            Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), v);
            return arith::IndexCastOp::create(b, l, b.getIndexType(), i)
                .getResult();
          };
          auto clampIndex = [&](Value i, int64_t size) {
            Value low = arith::MaxSIOp::create(b, l, i, index(0));
            return arith::MinSIOp::create(b, l, low, index(size - 1))
                .getResult();
          };
          // The input coordinate of output position i along spatial dim k.
          auto coordinate = [&](unsigned k) {
            int64_t in = inType.getDimSize(2 + k),
                    outSize = type.getDimSize(2 + k);
            Value i = linalg::IndexOp::create(b, l, 2 + k);
            Value x = arith::SIToFPOp::create(
                b, l, f64, arith::IndexCastOp::create(b, l, b.getI64Type(), i));
            if (coordinates == "asymmetric")
              return arith::DivFOp::create(b, l, x, real(scales[k]))
                  .getResult();
            if (coordinates == "align_corners") {
              // ONNX divides by the unfloored output length minus one.
              double length = double(in) * scales[k];
              if (length <= 1)
                return real(0.0);
              Value scaled =
                  arith::MulFOp::create(b, l, x, real(double(in - 1)));
              return arith::DivFOp::create(b, l, scaled, real(length - 1))
                  .getResult();
            }
            if (coordinates == "pytorch_half_pixel" && outSize == 1)
              return real(0.0);
            Value centered = arith::AddFOp::create(b, l, x, real(0.5));
            Value scaled =
                arith::DivFOp::create(b, l, centered, real(scales[k]));
            return arith::SubFOp::create(b, l, scaled, real(0.5)).getResult();
          };
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          int64_t h = inType.getDimSize(2), w = inType.getDimSize(3);
          auto read = [&](Value row, Value col) {
            return tensor::ExtractOp::create(b, l, input,
                                             ValueRange{n, c, row, col})
                .getResult();
          };
          Value y = coordinate(0), x = coordinate(1);
          if (!linear && !cubic) {
            auto round = [&](Value v) -> Value {
              if (nearestMode == "floor")
                return math::FloorOp::create(b, l, v);
              if (nearestMode == "ceil")
                return math::CeilOp::create(b, l, v);
              // Halfway cases go down (round_prefer_floor) or up.
              if (nearestMode == "round_prefer_floor") {
                Value shifted = arith::SubFOp::create(b, l, v, real(0.5));
                return math::CeilOp::create(b, l, shifted);
              }
              Value shifted = arith::AddFOp::create(b, l, v, real(0.5));
              return math::FloorOp::create(b, l, shifted);
            };
            Value row = clampIndex(toIndex(round(y)), h);
            Value col = clampIndex(toIndex(round(x)), w);
            return convertScalar(b, l, read(row, col), out);
          }
          if (cubic) {
            // Bicubic (resizeCubicTap): the weights of Keys' kernel (a =
            // -0.75) in f64, as ONNX's reference, rounded once to the
            // activations type; four inputs per axis at floor(c) - 1 + t,
            // clamped (edge padding); along the columns first, then the
            // rows, each sum in tap order.
            auto taps = [&](Value v, int64_t size) {
              Value floor = math::FloorOp::create(b, l, v);
              Value r = arith::SubFOp::create(b, l, v, floor);
              const double a = kResizeCubicA;
              auto mul = [&](Value p, Value q) {
                return arith::MulFOp::create(b, l, p, q).getResult();
              };
              auto add = [&](Value p, Value q) {
                return arith::AddFOp::create(b, l, p, q).getResult();
              };
              auto sub = [&](Value p, Value q) {
                return arith::SubFOp::create(b, l, p, q).getResult();
              };
              // resizeCubicWeights, operation for operation.
              Value one = real(1.0);
              Value s = add(r, one), t = sub(one, r), u = add(t, one);
              auto outer = [&](Value d) {
                Value e = sub(mul(real(a), d), real(5 * a));
                e = add(mul(e, d), real(8 * a));
                return sub(mul(e, d), real(4 * a));
              };
              auto inner = [&](Value d) {
                Value e = sub(mul(real(a + 2), d), real(a + 3));
                return add(mul(mul(e, d), d), one);
              };
              Value weights[4] = {outer(s), inner(r), inner(t), outer(u)};
              Value base = toIndex(floor);
              SmallVector<std::pair<Value, Value>, 4> tap;
              for (int k = 0; k < 4; ++k) {
                Value at = arith::AddIOp::create(b, l, base, index(k - 1));
                tap.push_back({clampIndex(at, size),
                               convertScalar(b, l, weights[k], elem)});
              }
              return tap;
            };
            auto rows = taps(y, h), cols = taps(x, w);
            auto weighted = [&](ArrayRef<std::pair<Value, Value>> tap,
                                function_ref<Value(Value)> value) {
              Value sum;
              for (auto [at, weight] : tap) {
                Value term = arith::MulFOp::create(b, l, weight, value(at));
                sum = sum ? arith::AddFOp::create(b, l, sum, term).getResult()
                          : term;
              }
              return sum;
            };
            Value v = weighted(rows, [&](Value row) {
              return weighted(cols, [&](Value col) { return read(row, col); });
            });
            return convertScalar(b, l, v, out);
          }
          // Bilinear: the coordinate clamped into [0, size - 1], its two
          // neighbours and the weight of the upper one.
          auto neighbours = [&](Value v, int64_t size) {
            Value low = arith::MaximumFOp::create(b, l, v, real(0.0));
            Value clamped =
                arith::MinimumFOp::create(b, l, low, real(double(size - 1)));
            Value floor = math::FloorOp::create(b, l, clamped);
            Value i0 = clampIndex(toIndex(floor), size);
            Value i1 = clampIndex(
                arith::AddIOp::create(b, l, i0, index(1)).getResult(), size);
            Value frac = arith::SubFOp::create(b, l, clamped, floor);
            return std::make_tuple(i0, i1, convertScalar(b, l, frac, elem));
          };
          auto [r0, r1, fy] = neighbours(y, h);
          auto [c0, c1, fx] = neighbours(x, w);
          Value one =
              arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 1.0));
          auto lerp = [&](Value lo, Value hi, Value t) {
            Value u = arith::SubFOp::create(b, l, one, t);
            Value a = arith::MulFOp::create(b, l, lo, u);
            Value bb = arith::MulFOp::create(b, l, hi, t);
            return arith::AddFOp::create(b, l, a, bb).getResult();
          };
          Value top = lerp(read(r0, c0), read(r0, c1), fx);
          Value bottom = lerp(read(r1, c0), read(r1, c1), fx);
          return convertScalar(b, l, lerp(top, bottom, fy), out);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mix::lowering::populateUpsamplingPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<ConvTranspose2DLowering, ResizeLowering>(patterns.getContext(),
                                                        options);
}
