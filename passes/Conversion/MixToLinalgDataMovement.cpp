//===- MixToLinalgDataMovement.cpp - transpose, concat, slice, pad --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Layers that move elements without arithmetic: each element of the result
// is one element of an input (or pad's constant), converted once from the
// activations type to the result's (exact when both are the same).
//
// transpose is one linalg.generic reading the input through a permutation
// map. slice, concat and pad compute each result element's source index
// and read it with tensor.extract: slice at start + step * i, concat from
// the input whose slot holds the element, pad reflected or clamped at the
// edges.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

SmallVector<utils::IteratorType> allParallel(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

/// result = input read through `inputMap` over the result's index space,
/// converted to the result's element type.
Value gather(OpBuilder &b, Location loc, Value input, AffineMap inputMap,
             ShapedType type) {
  int64_t rank = type.getRank();
  Type out = type.getElementType();
  return generic(
      b, loc, input, type.getShape(), out, std::nullopt,
      {inputMap, AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
      allParallel(rank), [&](OpBuilder &nb, Location l, ValueRange a) {
        return convertScalar(nb, l, a[0], out);
      });
}

struct TransposeLowering : MixLoweringPattern<TransposeOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    ArrayRef<int64_t> perm = op.getPermutation();
    // Result index (d0, ..., dn) reads input dimension perm[i] at d_i.
    SmallVector<AffineExpr> exprs(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      exprs[p] = rewriter.getAffineDimExpr(i);
    AffineMap map = AffineMap::get(perm.size(), 0, exprs, getContext());
    rewriter.replaceOp(
        op, gather(rewriter, op.getLoc(), adaptor.getInput(), map, type));
    return success();
  }
};

/// An output-only generic reading input[start + step * i] with
/// tensor.extract: a map `d * step + start` in a generic would let linalg
/// take the loop bound from the (larger) input whenever step is 1 and start
/// 0 (the map is then the identity).
struct SliceLowering : MixLoweringPattern<SliceOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    Type out = type.getElementType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> start(rank, 0), step(rank, 1);
    // The verifier normalized nothing in place: axes may be negative.
    for (auto [axis, s, st] :
         llvm::zip_equal(op.getAxes(), op.getStarts(), op.getSteps())) {
      int64_t a = axis < 0 ? axis + rank : axis;
      start[a] = s;
      step[a] = st;
    }
    Value input = adaptor.getInput();
    Value result = generic(
        rewriter, op.getLoc(), ValueRange{}, type.getShape(), out, std::nullopt,
        {AffineMap::getMultiDimIdentityMap(rank, getContext())},
        allParallel(rank), [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> source;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            if (start[d] != 0 || step[d] != 1) {
              Value scaled = arith::MulIOp::create(
                  b, l, i, arith::ConstantIndexOp::create(b, l, step[d]));
              i = arith::AddIOp::create(
                  b, l, scaled, arith::ConstantIndexOp::create(b, l, start[d]));
            }
            source.push_back(i);
          }
          Value x = tensor::ExtractOp::create(b, l, input, source);
          return convertScalar(b, l, x, out);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// One elementwise generic over the result: each element reads the input
/// whose slot along the axis holds it (a chain of scf.if, one read). An
/// insert_slice per input would bufferize into strided copies, which become
/// calls of MLIR's runtime (memrefCopy) that generated code must not need.
struct ConcatLowering : MixLoweringPattern<ConcatOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getType());
    Type out = type.getElementType();
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis()); // I64Attr: uint64_t
    if (axis < 0)
      axis += rank;
    SmallVector<Value> inputs(adaptor.getInputs());
    Value result = generic(
        rewriter, loc, ValueRange{}, type.getShape(), out, std::nullopt,
        {AffineMap::getMultiDimIdentityMap(rank, getContext())},
        allParallel(rank), [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> index;
          for (int64_t d = 0; d < rank; ++d)
            index.push_back(linalg::IndexOp::create(b, l, d));
          // read(i, offset): input i at index[axis] - offset, or a later one.
          std::function<Value(size_t, int64_t)> read = [&](size_t i,
                                                           int64_t offset) {
            auto inType = cast<ShapedType>(inputs[i].getType());
            SmallVector<Value> at = index;
            at[axis] = arith::SubIOp::create(
                b, l, index[axis],
                arith::ConstantIndexOp::create(b, l, offset));
            if (i + 1 == inputs.size()) {
              Value x = tensor::ExtractOp::create(b, l, inputs[i], at);
              return convertScalar(b, l, x, out);
            }
            int64_t end = offset + inType.getDimSize(axis);
            Value here = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, index[axis],
                arith::ConstantIndexOp::create(b, l, end));
            auto branch = scf::IfOp::create(b, l, TypeRange{out}, here,
                                            /*withElseRegion=*/true);
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(branch.thenBlock());
            Value x = tensor::ExtractOp::create(b, l, inputs[i], at);
            scf::YieldOp::create(b, l, convertScalar(b, l, x, out));
            b.setInsertionPointToStart(branch.elseBlock());
            scf::YieldOp::create(b, l, read(i + 1, end));
            return branch.getResult(0);
          };
          return read(0, 0);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PadLowering : MixLoweringPattern<PadOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getType());
    Type out = type.getElementType();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> in = cast<ShapedType>(input.getType()).getShape();
    ArrayRef<int64_t> pads = op.getPads();
    int64_t rank = type.getRank();
    StringRef mode = op.getMode();
    double padValue = op.getValue().convertToDouble();
    Value result = generic(
        rewriter, loc, ValueRange{}, type.getShape(), out, std::nullopt,
        {AffineMap::getMultiDimIdentityMap(rank, getContext())},
        allParallel(rank), [&](OpBuilder &b, Location l, ValueRange) {
          auto index = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v).getResult();
          };
          auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
            return arith::CmpIOp::create(b, l, p, x, y).getResult();
          };
          Value inside; // constant mode: every index within the input
          SmallVector<Value> source;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            int64_t before = pads[d], n = in[d];
            if (before == 0 && pads[rank + d] == 0) {
              source.push_back(i);
              continue;
            }
            Value s = arith::SubIOp::create(b, l, i, index(before));
            Value low = cmp(arith::CmpIPredicate::slt, s, index(0));
            Value high = cmp(arith::CmpIPredicate::sge, s, index(n));
            if (mode == "reflect") {
              // Pads are smaller than n: one reflection reaches the input.
              Value negated = arith::SubIOp::create(b, l, index(0), s);
              Value mirrored =
                  arith::SubIOp::create(b, l, index(2 * (n - 1)), s);
              s = arith::SelectOp::create(b, l, low, negated, s);
              s = arith::SelectOp::create(b, l, high, mirrored, s);
            } else {
              if (mode == "constant") {
                Value out = arith::OrIOp::create(b, l, low, high);
                Value in = arith::XOrIOp::create(
                    b, l, out,
                    arith::ConstantIntOp::create(b, l, b.getI1Type(), 1));
                inside =
                    inside ? arith::AndIOp::create(b, l, inside, in).getResult()
                           : in;
              }
              // Edge, and a safe read for constant mode's outside cells.
              s = arith::MaxSIOp::create(b, l, s, index(0));
              s = arith::MinSIOp::create(b, l, s, index(n - 1));
            }
            source.push_back(s);
          }
          Value x = tensor::ExtractOp::create(b, l, input, source);
          Value y = convertScalar(b, l, x, out);
          if (!inside)
            return y;
          Value fill =
              arith::ConstantOp::create(b, l, b.getFloatAttr(out, padValue));
          return arith::SelectOp::create(b, l, inside, y, fill).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mix::lowering::populateDataMovementPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<TransposeLowering, SliceLowering, ConcatLowering, PadLowering>(
      patterns.getContext(), options);
}
