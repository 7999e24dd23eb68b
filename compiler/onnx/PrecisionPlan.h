//===- PrecisionPlan.h - precisions for an imported model -----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A precision plan (JSON, docs/onnx.md#precision-plans) says which
// precisions an imported model gets: the network default, per block path
// (glob), per layer kind and per ONNX node name, each a precision or
// per-property overrides. The importer writes them as the ordinary network,
// block, layer and property precisions of the mix dialect, so resolution,
// policies and `mix-lint --explain` treat them like hand-written ones.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_ONNX_PRECISIONPLAN_H
#define MIXC_COMPILER_ONNX_PRECISIONPLAN_H

#include "dialect/MixOps.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mix {

/// A layer precision and property overrides.
struct PlanPrecisions {
  /// The key in the file, for messages ("ops.softmax").
  std::string key;
  PrecisionAttr layer;
  /// Indexed by PrecisionProperty.
  PrecisionAttr properties[4];
};

struct PrecisionPlan {
  std::string path;
  /// "default": the network's precision.
  PrecisionAttr network;
  /// "blocks": glob over dotted block paths -> precision.
  std::vector<std::pair<std::string, PrecisionAttr>> blocks;
  /// "ops": layer kind (`dense`, `softmax`, ...) -> precisions.
  std::vector<PlanPrecisions> ops;
  /// "nodes": ONNX node name -> precisions.
  std::vector<PlanPrecisions> nodes;
};

/// Reads a plan (bounded like a policy: 1 MiB, nesting 100). Errors name
/// the file and the offending key: "plan.json: ops.sofmax: unknown layer
/// kind (expected one of ...)".
llvm::Expected<PrecisionPlan> loadPrecisionPlan(llvm::StringRef path,
                                                mlir::MLIRContext &context);

/// Writes `plan` into `network` (built by the importer; layers carry their
/// node names in NameLoc locations). Block globs: the longest matching
/// pattern wins. Op-kind entries apply first, node entries over them. A
/// block pattern or node name that matches nothing is an error, as is a
/// weights override on a layer without weights.
llvm::Error applyPrecisionPlan(const PrecisionPlan &plan, NetworkOp network);

} // namespace mix

#endif // MIXC_COMPILER_ONNX_PRECISIONPLAN_H
