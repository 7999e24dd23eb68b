//===- InsertCasts.h - explicit precision conversions ---------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_INSERTCASTS_H
#define MIXC_PASSES_INSERTCASTS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/MapVector.h"

namespace mix {

struct InsertCastsOptions {
  /// Mark narrowing casts `checked`.
  bool checked = true;
};

/// The casts inserted, in total and per scope (the network or block whose
/// body received them, in IR order).
struct CastCounts {
  unsigned total = 0;
  llvm::MapVector<mlir::Operation *, unsigned> perScope;
};

/// Inserts the casts described in Passes.td (MixInsertCastsPass) into every
/// network nested in `root`. Fails (with a diagnostic) when a layer's
/// precisions cannot be resolved.
class PrecisionAnalysis;

/// Inserts the casts of every network under `root`, resolving layers through
/// `precisions` when given (else a resolution of its own). Casts change no
/// layer or block, so the analysis stays valid.
mlir::FailureOr<CastCounts>
insertCasts(mlir::Operation *root, const InsertCastsOptions &options = {},
            PrecisionAnalysis *precisions = nullptr);

/// The float element type a precision is computed in at the tensor level:
/// the precision's own type for floats, f32 for int8 (quantization is a
/// separate step).
mlir::Type getComputeElementType(mlir::Attribute precision);

} // namespace mix

#endif // MIXC_PASSES_INSERTCASTS_H
