//===- Resolve.h - hierarchical precision resolution ----------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The C++ API of precision resolution, shared by `mix-resolve-precision`,
// `mix-verify-policy`, `mix-lint --explain` and later compiler phases.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_RESOLVE_H
#define MIXC_PASSES_RESOLVE_H

#include "dialect/MixOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mix {

/// A precision together with the level and op that decided it.
struct Decision {
  PrecisionAttr precision;
  PrecisionSource source = PrecisionSource::network;
  /// The op that set the precision: the network, a block, or the layer
  /// itself (layer precision or property override). For derived defaults,
  /// the op that decided the precision the default was derived from.
  mlir::Operation *origin = nullptr;

  /// The provenance in the words of the IR, `--explain` and the report:
  /// "network @net", "block @stage1", "block <unnamed>", "layer",
  /// "property" or "derived".
  std::string describe() const;
  /// The attribute form recorded in the IR.
  DecisionAttr toAttr() const;
};

/// The resolved precisions of one layer.
struct LayerResolution {
  /// Absent for layers without weights.
  std::optional<Decision> weights;
  Decision activations;
  Decision accumulator;
  Decision output;
  /// What the layer's own level resolves to (layer precision, or else what
  /// it inherits): the base of weights and activations.
  Decision layer;

  /// The decision for `property`; nullptr for weights on a layer without.
  const Decision *get(PrecisionProperty property) const;
  ResolvedAttr toAttr(mlir::MLIRContext *context) const;
};

/// The precision that `op` (a block or a layer) inherits from its enclosing
/// blocks and network, ignoring its own precision. Emits an error and fails
/// when `op` is not inside a `mix.network`.
mlir::FailureOr<Decision> inheritedPrecision(mlir::Operation *op);

/// The precision a scope op (network or block) or a layer sets for itself
/// or inherits.
mlir::FailureOr<Decision> effectivePrecision(mlir::Operation *op);

/// The default accumulator precision for the given weights (may be null)
/// and activations precisions: i32 for int8 x int8, f64 when either is f64,
/// f32 otherwise.
PrecisionAttr defaultAccumulator(PrecisionAttr weights,
                                 PrecisionAttr activations);

/// The default output precision for the given activations precision: the
/// same, except f32 for int8.
PrecisionAttr defaultOutput(PrecisionAttr activations);

/// Resolves every property of `layer` by the rule property override > layer
/// > innermost block > ... > network. Emits a diagnostic and fails when the
/// layer is outside a network or an inherited int8 axis does not fit the
/// layer's tensors.
mlir::FailureOr<LayerResolution> resolveLayer(LayerOpInterface layer);

/// Resolves `layer` given `base`, the decision of its own level (its layer
/// precision, or what it inherits): `PrecisionAnalysis` computes `base` once
/// per scope.
mlir::FailureOr<LayerResolution> resolveLayer(LayerOpInterface layer,
                                              const Decision &base);

/// Counts of decisions by source, for statistics and reports.
struct ResolveCounts {
  unsigned layers = 0;
  unsigned bySource[5] = {0, 0, 0, 0, 0};
};

/// Resolves every layer nested in `root` and records the result in each
/// layer's `resolved` attribute. Idempotent. Passes use `PrecisionAnalysis`
/// instead, which shares the resolution across a pipeline.
mlir::LogicalResult resolvePrecisions(mlir::Operation *root,
                                      ResolveCounts *counts = nullptr);

/// A short, human-readable name for an op in messages and tables: the op
/// name plus the block/network name where it has one.
std::string describeOp(mlir::Operation *op);

/// A stable name of a layer for calibration files and reports: the network,
/// the enclosing block names and the op kind with its index among the ops of
/// that kind in its block, e.g. "edge/features/conv2d#1". Unnamed blocks
/// appear as "block#<index among the blocks of their parent>".
std::string getLayerPath(mlir::Operation *layer);

} // namespace mix

#endif // MIXC_PASSES_RESOLVE_H
