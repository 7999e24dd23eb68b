//===- MixToLinalgStructure.cpp - weights, shapes, networks, blocks -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// What carries data rather than computing it: inline weights become
// constants, reshape/flatten become collapse + expand (row-major, no data
// moves), embedding a clamped gather; blocks are inlined before the patterns
// run and networks become func.func after them.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/LayerLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mix;
using namespace mix::lowering;

namespace {

struct WeightLowering : MixLoweringPattern<WeightOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(WeightOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ElementsAttr value = op.getValueAttr();
    if (!value) {
      op.emitOpError() << "external weight '" << op.getRefAttr().getValue()
                       << "' must be loaded before lowering (mixc --weights)";
      return rewriter.notifyMatchFailure(op, "external weight not loaded");
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, cast<TypedAttr>(value));
    return success();
  }
};

/// reshape and flatten: collapse to 1-D, expand to the result shape (both
/// row-major, so no data moves), then convert the element type if needed.
template <typename OpTy> struct ReshapeLowering : MixLoweringPattern<OpTy> {
  using MixLoweringPattern<OpTy>::MixLoweringPattern;
  using OpAdaptor = typename MixLoweringPattern<OpTy>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto type = cast<RankedTensorType>(op.getType());
    auto all = [](int64_t rank) {
      ReassociationIndices r;
      for (int64_t i = 0; i < rank; ++i)
        r.push_back(i);
      return SmallVector<ReassociationIndices>{r};
    };
    // Through one dimension: a rank-0 tensor is a one-element vector by an
    // expansion (and back by a collapse) with no reassociation group.
    Value flat = input;
    if (inType.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get({1}, inType.getElementType()),
          input, SmallVector<ReassociationIndices>{});
    else if (inType.getRank() != 1)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, input,
                                             all(inType.getRank()));
    Value shaped = flat;
    if (type.getRank() == 0)
      shaped = tensor::CollapseShapeOp::create(
          rewriter, loc, flat, SmallVector<ReassociationIndices>{});
    else if (type.getRank() != 1)
      shaped = tensor::ExpandShapeOp::create(
          rewriter, loc, type.clone(inType.getElementType()), flat,
          all(type.getRank()));
    rewriter.replaceOp(op, convertTensor(rewriter, loc, shaped, type));
    return success();
  }
};

struct EmbeddingLowering : MixLoweringPattern<EmbeddingOp> {
  using MixLoweringPattern::MixLoweringPattern;
  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<ShapedType>(op.getType());
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> idx;
    for (int64_t i = 0; i + 1 < rank; ++i)
      idx.push_back(getAffineDimExpr(i, ctx));
    Value table = adaptor.getTable();
    int64_t rows = cast<ShapedType>(table.getType()).getDimSize(0);
    Value result = generic(
        rewriter, op.getLoc(), adaptor.getIndices(), type.getShape(),
        type.getElementType(), std::nullopt,
        {AffineMap::get(rank, 0, idx, ctx),
         AffineMap::getMultiDimIdentityMap(rank, ctx)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          // Indices are clamped into the table: the reference interpreter
          // reports out-of-range ones; compiled code must never read outside.
          Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), a[0]);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value maxRow = arith::ConstantIndexOp::create(b, l, rows - 1);
          i = arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, i, zero), maxRow);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          Value v = tensor::ExtractOp::create(b, l, table, ValueRange{i, col});
          return convertScalar(b, l, v, type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// mix.network -> func.func with the same signature and C interface.
void convertNetwork(NetworkOp network) {
  OpBuilder b(network);
  auto func = func::FuncOp::create(b, network.getLoc(), network.getSymName(),
                                   network.getFunctionType());
  func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  func.getBody().takeBody(network.getBody());
  auto ret = cast<ReturnOp>(func.getBody().front().getTerminator());
  b.setInsertionPoint(ret);
  // A value returned twice (`mix.return %r, %r`) stays so here:
  // mix-distinct-results gives each repeat its own buffer after
  // bufferization (canonicalization can make two results one value too).
  func::ReturnOp::create(b, ret.getLoc(), ret.getValues());
  ret.erase();
  network.erase();
}

} // namespace

void mix::lowering::populateStructurePatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  patterns.add<WeightLowering, ReshapeLowering<ReshapeOp>,
               ReshapeLowering<FlattenOp>, EmbeddingLowering>(
      patterns.getContext(), options);
}

void mix::lowering::convertNetworks(ModuleOp module) {
  for (auto network : llvm::make_early_inc_range(module.getOps<NetworkOp>()))
    convertNetwork(network);
}

void mix::inlineMixBlocks(Operation *root) {
  SmallVector<BlockOp> blocks;
  root->walk<WalkOrder::PostOrder>([&](BlockOp b) { blocks.push_back(b); });
  IRRewriter rewriter(root->getContext());
  for (BlockOp block : blocks) {
    Block &body = block.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    // A yielded block argument stands for the block's input: the argument
    // itself disappears with the inlining.
    SmallVector<Value> results;
    for (Value v : yield.getValues()) {
      auto arg = dyn_cast<BlockArgument>(v);
      results.push_back(arg && arg.getOwner() == &body
                            ? block.getInputs()[arg.getArgNumber()]
                            : v);
    }
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, block, block.getInputs());
    rewriter.replaceOp(block, results);
  }
}
