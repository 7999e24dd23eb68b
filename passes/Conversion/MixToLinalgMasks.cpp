//===- MixToLinalgMasks.cpp - gather, expand, compare, where to linalg ----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The indexing layers of issue 13: like slice and concat
// (MixToLinalgDataMovement.cpp), each is one output-only linalg.generic over
// the result whose body computes the source index and reads the input with
// tensor.extract, converting the element once to the result's type.
//
// gather reads the input at the constant index of its position in the
// indices (a scalar for rank-0 indices, else one read of an arith.constant
// table of the indices); expand reads dimension d of the input at 0 where
// the input has 1 and the result more, at the result's index elsewhere.
//
// compare and where are one elementwise linalg.generic with numpy
// broadcasting: compare extends both operands exactly to f32 (f64 when one
// is f64; f16 and bf16 values are exact there, so the comparison is the one
// at the operands' precision) and emits arith.cmpf, ordered for every
// predicate but `ne` (unordered: NaN compares false, `ne` true, as IEEE);
// integer operands (one type) compare exactly with a signed arith.cmpi;
// where selects with arith.select and converts the chosen value once.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

/// A generic over `type`'s shape without inputs whose element is
/// `input[source(indices of the result)]`, converted to `type`'s element type.
Value readByIndex(
    OpBuilder &builder, Location loc, Value input, ShapedType type,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ArrayRef<Value>)>
        source) {
  int64_t rank = type.getRank();
  Type out = type.getElementType();
  return generic(
      builder, loc, ValueRange{}, type.getShape(), out, std::nullopt,
      {AffineMap::getMultiDimIdentityMap(rank, builder.getContext())},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange) {
        SmallVector<Value> index;
        for (int64_t d = 0; d < rank; ++d)
          index.push_back(linalg::IndexOp::create(b, l, d));
        Value x = tensor::ExtractOp::create(b, l, input, source(b, l, index));
        return convertScalar(b, l, x, out);
      });
}

struct GatherLowering : MixLoweringPattern<GatherOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getType());
    Value input = adaptor.getInput();
    int64_t inRank = cast<ShapedType>(input.getType()).getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis()); // I64Attr: uint64_t
    if (axis < 0)
      axis += inRank;
    int64_t dim = cast<ShapedType>(input.getType()).getDimSize(axis);
    // The indices: a tensor read at the result's indices axis .. axis +
    // indexRank - 1 (the operand, or the constant table), or, for constant
    // rank-0 indices, one constant.
    Value table = adaptor.getRuntimeIndices();
    bool runtime = bool(table);
    int64_t indexRank = 0, scalar = 0;
    if (runtime) {
      indexRank = cast<ShapedType>(table.getType()).getRank();
    } else {
      DenseIntElementsAttr indices = *op.getIndices();
      indexRank = cast<ShapedType>(indices.getType()).getRank();
      if (indexRank > 0)
        table = arith::ConstantOp::create(rewriter, loc, indices);
      else
        scalar = *indices.getValues<int64_t>().begin();
    }
    Value result = readByIndex(
        rewriter, loc, input, type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
          SmallVector<Value> source(index.take_front(axis));
          Value at;
          if (!table) {
            at = arith::ConstantIndexOp::create(b, l, scalar);
          } else {
            Value i = tensor::ExtractOp::create(b, l, table,
                                                index.slice(axis, indexRank));
            at = arith::IndexCastOp::create(b, l, b.getIndexType(), i);
          }
          if (runtime) {
            // Negative indices count from the end; the rest are clamped
            // into [0, dim) (the verifier refuses an empty axis), so the
            // read never leaves the input.
            Value zero = arith::ConstantIndexOp::create(b, l, 0);
            Value size = arith::ConstantIndexOp::create(b, l, dim);
            Value negative = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::slt, at, zero);
            at = arith::SelectOp::create(
                b, l, negative, arith::AddIOp::create(b, l, at, size), at);
            Value last = arith::ConstantIndexOp::create(b, l, dim - 1);
            at = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, at, zero), last);
          }
          source.push_back(at);
          llvm::append_range(source, index.drop_front(axis + indexRank));
          return source;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ExpandLowering : MixLoweringPattern<ExpandOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    Value input = adaptor.getInput();
    ArrayRef<int64_t> in = cast<ShapedType>(input.getType()).getShape();
    int64_t offset = type.getRank() - int64_t(in.size());
    Value result = readByIndex(
        rewriter, op.getLoc(), input, type,
        [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
          SmallVector<Value> source;
          for (int64_t d = 0; d < int64_t(in.size()); ++d)
            source.push_back(in[d] == 1 && type.getDimSize(offset + d) != 1
                                 ? arith::ConstantIndexOp::create(b, l, 0)
                                 : index[offset + d]);
          return source;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The arith predicate of a mix.compare predicate (verified to be one of
/// the six).
arith::CmpFPredicate cmpPredicate(StringRef p) {
  return llvm::StringSwitch<arith::CmpFPredicate>(p)
      .Case("eq", arith::CmpFPredicate::OEQ)
      .Case("ne", arith::CmpFPredicate::UNE)
      .Case("lt", arith::CmpFPredicate::OLT)
      .Case("le", arith::CmpFPredicate::OLE)
      .Case("gt", arith::CmpFPredicate::OGT)
      .Case("ge", arith::CmpFPredicate::OGE)
      .Case("ult", arith::CmpFPredicate::ULT)
      .Case("ule", arith::CmpFPredicate::ULE)
      .Case("ugt", arith::CmpFPredicate::UGT)
      .Default(arith::CmpFPredicate::UGE);
}

/// The signed integer predicate of a mix.compare predicate (integers are
/// never unordered: `ult` is `lt`).
arith::CmpIPredicate cmpIPredicate(StringRef p) {
  return llvm::StringSwitch<arith::CmpIPredicate>(p)
      .Case("eq", arith::CmpIPredicate::eq)
      .Case("ne", arith::CmpIPredicate::ne)
      .Cases({"lt", "ult"}, arith::CmpIPredicate::slt)
      .Cases({"le", "ule"}, arith::CmpIPredicate::sle)
      .Cases({"gt", "ugt"}, arith::CmpIPredicate::sgt)
      .Default(arith::CmpIPredicate::sge);
}

struct CompareLowering : MixLoweringPattern<CompareOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    if (isa<IntegerType>(getElementTypeOrSelf(op.getLhs().getType()))) {
      // Integers (both of one type): exact signed comparison.
      arith::CmpIPredicate predicate = cmpIPredicate(op.getPredicate());
      Value result = elementwise(
          rewriter, op.getLoc(), adaptor.getOperands(), type,
          [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
            return arith::CmpIOp::create(b, loc, predicate, args[0], args[1]);
          });
      rewriter.replaceOp(op, result);
      return success();
    }
    Type wide = rewriter.getF32Type();
    for (Value v : adaptor.getOperands())
      if (getElementTypeOrSelf(v.getType()).isF64())
        wide = rewriter.getF64Type();
    arith::CmpFPredicate predicate = cmpPredicate(op.getPredicate());
    Value result =
        elementwise(rewriter, op.getLoc(), adaptor.getOperands(), type,
                    [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                      Value l = convertScalar(b, loc, args[0], wide);
                      Value r = convertScalar(b, loc, args[1], wide);
                      return arith::CmpFOp::create(b, loc, predicate, l, r);
                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LogicalLowering : MixLoweringPattern<LogicalOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(LogicalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    StringRef kind = op.getKind();
    Value result = elementwise(
        rewriter, op.getLoc(), adaptor.getOperands(), type,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (kind == "not") {
            Value one = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
            return arith::XOrIOp::create(b, loc, args[0], one);
          }
          if (kind == "and")
            return arith::AndIOp::create(b, loc, args[0], args[1]);
          if (kind == "or")
            return arith::OrIOp::create(b, loc, args[0], args[1]);
          return arith::XOrIOp::create(b, loc, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct WhereLowering : MixLoweringPattern<WhereOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<ShapedType>(op.getType());
    Type to = type.getElementType();
    Value result =
        elementwise(rewriter, op.getLoc(), adaptor.getOperands(), type,
                    [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                      Value x = convertScalar(b, loc, args[1], to);
                      Value y = convertScalar(b, loc, args[2], to);
                      return arith::SelectOp::create(b, loc, args[0], x, y);
                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mix::lowering::populateMaskPatterns(RewritePatternSet &patterns,
                                         const MixToLinalgOptions &options) {
  patterns.add<GatherLowering, ExpandLowering, CompareLowering, LogicalLowering,
               WhereLowering>(patterns.getContext(), options);
}
