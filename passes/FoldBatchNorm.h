//===- FoldBatchNorm.h - batch_norm folded into conv2d weights ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The C++ API of `mix-fold-batch-norm` (the formulas are in
// FoldBatchNorm.cpp and docs/compiler.md). A batch_norm is folded into the
// conv2d that feeds it when:
//
//   - the conv2d's result has no other use, directly or through the block
//     boundaries between them (an imported model puts a conv2d and its
//     batch norm in blocks of their own);
//   - both layers are resolved, the conv2d is a float layer (its weights
//     and accumulator float: int8 convolutions keep their batch_norm), and
//     the conv2d's accumulator is at least as wide as the batch_norm's
//     accumulator and activations, and its output at least as wide as the
//     batch_norm's output. A batch_norm a user kept at f32 after an f16
//     conv2d, as the precision hierarchy invites, therefore stays;
//   - every weight involved is bound to data (compile time), and the folded
//     weights and bias are finite in their precisions.
//
// The folded conv2d carries `mix.folded_batch_norm = loc(...)`, the
// batch_norm's location, for `mixc --report`.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_FOLDBATCHNORM_H
#define MIXC_PASSES_FOLDBATCHNORM_H

#include "dialect/MixOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <vector>

namespace mix {

/// A batch_norm that was folded, and the conv2d it was folded into.
struct FoldedBatchNorm {
  mlir::Location batchNorm;
  mlir::Location conv;
};

/// Why `norm` cannot be folded (see the file comment), or nothing when it
/// can, subject to the folded values being finite.
std::optional<std::string> whyNotFoldable(BatchNormOp norm);

/// Folds `norm` into its conv2d and erases it; fails (changing nothing)
/// when it cannot be folded.
mlir::FailureOr<FoldedBatchNorm> foldBatchNorm(BatchNormOp norm);

} // namespace mix

#endif // MIXC_PASSES_FOLDBATCHNORM_H
