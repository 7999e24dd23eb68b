//===- PolicyCheck.h - checking resolved precisions against a policy ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_POLICYCHECK_H
#define MIXC_PASSES_POLICYCHECK_H

#include "mlir/IR/Location.h"
#include "passes/Policy.h"
#include "passes/PrecisionAnalysis.h"
#include "passes/Resolve.h"

#include <string>
#include <vector>

namespace mix {

/// One policy violation at one op.
struct Finding {
  struct Note {
    mlir::Location loc;
    std::string message;
  };
  Rule rule;
  Severity severity;
  /// The op the finding is about (a layer or a block).
  mlir::Operation *op;
  /// The property involved, when there is one.
  std::optional<PrecisionProperty> property;
  /// The resolved precision the rule objected to (e.g. "f16").
  std::string precision;
  /// The message, without location, severity or rule prefix.
  std::string message;
  /// Usually one note: where the precision was inherited from.
  std::vector<Note> notes;
};

/// Resolves every layer nested in `root` (through `precisions` when given,
/// else a resolution of its own) and checks it against `policy`. Findings
/// come in IR order. Fails (after emitting diagnostics) only when resolution
/// itself fails.
mlir::FailureOr<std::vector<Finding>>
checkPolicy(mlir::Operation *root, const Policy &policy,
            PrecisionAnalysis *precisions = nullptr);

/// Emits `finding` as an MLIR diagnostic ("[rule] message" plus notes).
void emitFinding(const Finding &finding);

} // namespace mix

#endif // MIXC_PASSES_POLICYCHECK_H
