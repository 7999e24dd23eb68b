//===- PrecisionAnalysis.h - precision resolution, computed once ----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The resolved precisions of every layer under a root op, computed on demand
// and cached, so that the passes of a pipeline (verify-policy, insert-casts,
// the int32 proof, quantize and the lowering) share one resolution instead of
// re-resolving in each. It is an MLIR analysis: a pass gets it with
// `getAnalysis<PrecisionAnalysis>()` and keeps it alive for the next pass with
// `markAnalysesPreserved<PrecisionAnalysis>()` when it neither creates, erases
// nor moves layers and blocks nor changes a precision attribute.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_PRECISIONANALYSIS_H
#define MIXC_PASSES_PRECISIONANALYSIS_H

#include "mlir/Pass/AnalysisManager.h"
#include "passes/Resolve.h"

#include "llvm/ADT/DenseMap.h"

namespace mix {

class PrecisionAnalysis {
public:
  /// Resolves lazily: nothing is computed until a layer is asked for.
  explicit PrecisionAnalysis(mlir::Operation *root) : root(root) {}

  /// The resolution of `layer` (which must be nested under the root), computed
  /// on the first request. Emits the diagnostic and fails as `resolveLayer`
  /// does; a failure is not cached.
  mlir::FailureOr<LayerResolution> resolve(LayerOpInterface layer);

  /// Resolves every layer under the root and records each resolution in the
  /// layer's `resolved` attribute (changing only attributes that differ).
  /// Fails at the first layer that does not resolve.
  mlir::LogicalResult record(ResolveCounts *counts = nullptr);

  /// How many layers have been resolved (not served from the cache): the
  /// measure tests use to check that a pipeline resolves each layer once.
  unsigned getNumComputed() const { return numComputed; }

  bool isInvalidated(const mlir::AnalysisManager::PreservedAnalyses &pa) {
    return !pa.isPreserved<PrecisionAnalysis>();
  }

private:
  /// What `scope` (a network or a block) decides for the layers directly in
  /// it: its own precision, or what it inherits.
  mlir::FailureOr<Decision> scopeDecision(mlir::Operation *scope,
                                          mlir::Operation *layer);

  mlir::Operation *root;
  llvm::DenseMap<mlir::Operation *, LayerResolution> layers;
  llvm::DenseMap<mlir::Operation *, Decision> scopes;
  unsigned numComputed = 0;
};

} // namespace mix

#endif // MIXC_PASSES_PRECISIONANALYSIS_H
