//===- MixOpsVerify.h - checks shared by the op verifiers -------*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the dialect's verifiers: MixOpsVerify.cpp (these checks and the
// structure ops), MixOpsVerifyLayers.cpp (the float layers) and
// MixOpsVerifyQuantized.cpp (quantized arithmetic). Every check emits its
// error on `op` (with a note at the definition of the value involved where
// that helps) and returns failure.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_DIALECT_MIXOPSVERIFY_H
#define MIXC_DIALECT_MIXOPSVERIFY_H

#include "dialect/MixOps.h"

namespace mix::checks {

/// The static shape of a shaped value.
llvm::ArrayRef<int64_t> shapeOf(mlir::Value v);

/// Attaches "<what> defined here" at the op producing `value`, when there is
/// one (block arguments have no defining op).
void noteDefinition(mlir::InFlightDiagnostic &diag, mlir::Value value,
                    llvm::StringRef what);

mlir::LogicalResult checkRank(mlir::Operation *op, mlir::Value value,
                              llvm::StringRef what, int64_t rank);

mlir::LogicalResult checkMinRank(mlir::Operation *op, mlir::Value value,
                                 llvm::StringRef what, int64_t rank);

/// Checks that a per-channel parameter (bias, norm parameters) is `[size]`.
mlir::LogicalResult checkVector(mlir::Operation *op, mlir::Value value,
                                llvm::StringRef what, int64_t size,
                                llvm::StringRef sizeName);

mlir::LogicalResult checkResultShape(mlir::Operation *op,
                                     llvm::ArrayRef<int64_t> expected);

/// The axis of the scores [B, H, S, S] that dimension `dim` of an attention
/// mask of rank `rank` (2: [S, S], 3: [B, S, S], 4: [B, H, S, S]) indexes.
inline int64_t attentionMaskAxis(int64_t rank, int64_t dim) {
  return rank == 3 && dim == 0 ? 0 : 4 - rank + dim;
}

/// Checks the additive mask of an attention over `input` ([B, S, E]) with
/// `heads` heads: rank 2 ([S, S]), 3 ([B, S, S]) or 4 ([B, H, S, S]), each
/// dimension equal to that of the scores [B, H, S, S] (queries by keys) or
/// 1 (broadcast).
mlir::LogicalResult checkAttentionMask(mlir::Operation *op, mlir::Value mask,
                                       mlir::Value input, int64_t heads);

mlir::LogicalResult checkArraySize(mlir::Operation *op, llvm::StringRef name,
                                   llvm::ArrayRef<int64_t> values, size_t size,
                                   int64_t minValue);

/// Output size of a strided window along one dimension, or failure.
mlir::FailureOr<int64_t> windowOutput(mlir::Operation *op,
                                      llvm::StringRef dimName, int64_t in,
                                      int64_t padBefore, int64_t padAfter,
                                      int64_t window, int64_t stride,
                                      int64_t dilation);

mlir::LogicalResult checkSameShape(mlir::Operation *op, mlir::Value value,
                                   llvm::StringRef what);

/// The axes a reduction (reduce_*) reduces: `axes` normalized into
/// [0, rank) and sorted, or every axis when `axes` is empty; an error at
/// `op` for an axis out of range or listed twice.
mlir::FailureOr<llvm::SmallVector<int64_t>>
reducedAxes(mlir::Operation *op, llvm::ArrayRef<int64_t> axes, int64_t rank);

//===----------------------------------------------------------------------===//
// Shapes shared by a float layer and its quantized form
//===----------------------------------------------------------------------===//

/// Shapes of dense and qdense.
template <typename OpTy> mlir::LogicalResult verifyDenseShapes(OpTy op) {
  if (mlir::failed(checkMinRank(op, op.getInput(), "input", 1)) ||
      mlir::failed(checkRank(op, op.getWeight(), "weight", 2)))
    return mlir::failure();
  llvm::ArrayRef<int64_t> in = shapeOf(op.getInput()),
                          w = shapeOf(op.getWeight());
  if (in.back() != w[0]) {
    mlir::InFlightDiagnostic diag =
        op.emitOpError() << "input features (" << formatDim(in.back())
                         << ") do not match the weight's rows (" << w[0]
                         << "); the weight is [in_features, "
                            "out_features]";
    noteDefinition(diag, op.getWeight(), "weight");
    return diag;
  }
  if (op.getBias() &&
      mlir::failed(checkVector(op, op.getBias(), "bias", w[1], "out_features")))
    return mlir::failure();
  llvm::SmallVector<int64_t> expected(in.drop_back());
  expected.push_back(w[1]);
  return checkResultShape(op, expected);
}

/// Shapes of matmul and qmatmul.
template <typename OpTy> mlir::LogicalResult verifyMatmulShapes(OpTy op) {
  if (mlir::failed(checkMinRank(op, op.getLhs(), "lhs", 2)) ||
      mlir::failed(checkMinRank(op, op.getRhs(), "rhs", 2)))
    return mlir::failure();
  llvm::ArrayRef<int64_t> a = shapeOf(op.getLhs()), b = shapeOf(op.getRhs());
  if (a.size() != b.size())
    return op.emitOpError() << "operands have different ranks (" << a.size()
                            << " and " << b.size() << ")";
  if (a.drop_back(2) != b.drop_back(2))
    return op.emitOpError()
           << "batch dimensions differ: " << formatShape(a.drop_back(2))
           << " and " << formatShape(b.drop_back(2));
  if (a.back() != b[b.size() - 2])
    return op.emitOpError() << "contraction dimensions differ: lhs has K = "
                            << formatDim(a.back())
                            << ", rhs has K = " << formatDim(b[b.size() - 2]);
  llvm::SmallVector<int64_t> expected(a.drop_back());
  expected.push_back(b.back());
  return checkResultShape(op, expected);
}

/// Shapes and attributes of conv2d and qconv2d.
template <typename OpTy> mlir::LogicalResult verifyConvShapes(OpTy op) {
  if (mlir::failed(checkRank(op, op.getInput(), "input", 4)) ||
      mlir::failed(checkRank(op, op.getWeight(), "weight", 4)) ||
      mlir::failed(checkArraySize(op, "strides", op.getStrides(), 2, 1)) ||
      mlir::failed(checkArraySize(op, "dilations", op.getDilations(), 2, 1)) ||
      mlir::failed(checkArraySize(op, "padding", op.getPadding(), 4, 0)))
    return mlir::failure();
  int64_t groups = op.getGroups();
  if (groups < 1)
    return op.emitOpError() << "expects groups >= 1, got " << groups;
  llvm::ArrayRef<int64_t> in = shapeOf(op.getInput()),
                          w = shapeOf(op.getWeight());
  if (in[1] % groups != 0)
    return op.emitOpError()
           << "input channels (" << in[1] << ") are not divisible by groups ("
           << groups << ")";
  if (w[0] % groups != 0)
    return op.emitOpError()
           << "output channels (" << w[0] << ") are not divisible by groups ("
           << groups << ")";
  if (w[1] * groups != in[1]) {
    mlir::InFlightDiagnostic diag =
        op.emitOpError() << "channel mismatch: the input has " << in[1]
                         << " channels, but the weight expects " << w[1]
                         << " per group x " << groups << " group(s)";
    noteDefinition(diag, op.getWeight(), "weight");
    return diag;
  }
  if (op.getBias() && mlir::failed(checkVector(op, op.getBias(), "bias", w[0],
                                               "output channels")))
    return mlir::failure();
  llvm::ArrayRef<int64_t> s = op.getStrides(), d = op.getDilations(),
                          p = op.getPadding();
  mlir::FailureOr<int64_t> oh =
      windowOutput(op, "height", in[2], p[0], p[2], w[2], s[0], d[0]);
  if (mlir::failed(oh))
    return mlir::failure();
  mlir::FailureOr<int64_t> ow =
      windowOutput(op, "width", in[3], p[1], p[3], w[3], s[1], d[1]);
  if (mlir::failed(ow))
    return mlir::failure();
  return checkResultShape(op, {in[0], w[0], *oh, *ow});
}

} // namespace mix::checks

#endif // MIXC_DIALECT_MIXOPSVERIFY_H
