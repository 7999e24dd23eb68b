//===- PrecisionMap.h - the precision map, a self-contained HTML page -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The precision map (`mix-lint --format=html`, `mixc --report-html`): one
// HTML page that draws a model as nested boxes (networks, blocks, layers),
// each layer colored by its precision, with the source of every decision,
// the casts, the policy findings and, for a compiled model, the weight bytes
// and int32 margins of each layer.
//
// The page is another renderer of the precision report: it embeds the JSON
// document of `mixc --report` (PrecisionReport::toJSON) plus the findings,
// and a script in the page draws the boxes from it. The page loads nothing
// (no network, no other file); its template is compiler/html/
// precision-map.html, compiled into the tools.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_PRECISIONMAP_H
#define MIXC_COMPILER_PRECISIONMAP_H

#include "compiler/Report.h"
#include "passes/PolicyCheck.h"
#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace mix {

/// A policy finding, placed where the map draws it.
struct MapFinding {
  /// The layer's path (getLayerPath) or the network's or block's label
  /// (getScopeLabel).
  std::string at;
  std::string rule, severity, message, location;
  /// The property and precision involved, when there are.
  std::string property, precision;
};

/// Places `findings` on the map (their ops must still exist).
std::vector<MapFinding> toMapFindings(llvm::ArrayRef<Finding> findings);

/// What the page says about where it comes from.
struct PrecisionMapInfo {
  std::string tool;  ///< "mix-lint" or "mixc"
  std::string model; ///< the model's path as given
  /// The report holds a compiled model's numbers (weight bytes per layer).
  bool compiled = false;
};

/// The page: `report` (recorded at least through recordModel and
/// recordCasts) and `findings`, as one self-contained HTML document.
std::string renderPrecisionMap(const PrecisionReport &report,
                               llvm::ArrayRef<MapFinding> findings,
                               const PrecisionMapInfo &info);

} // namespace mix

#endif // MIXC_COMPILER_PRECISIONMAP_H
