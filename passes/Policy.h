//===- Policy.h - precision policies --------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A precision policy: which rules run at which severity, their options, and
// allow/deny lists per op kind and per block name. Policies are JSON files
// (format in docs/policy.md) layered over the built-in default policy.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_POLICY_H
#define MIXC_PASSES_POLICY_H

#include "dialect/MixAttrs.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mix {

enum class Severity { off, warning, error };

/// The rules a policy can configure.
enum class Rule {
  SensitiveOpPrecision,
  Int8NonGemmLayer,
  AccumulatorPrecision,
  ReducedPrecisionReduction,
  RedundantOverride,
  OpPrecisionList,
  BlockPrecisionList,
  RecurrentStatePrecision,
  GradientPrecision,
};
inline constexpr unsigned kNumRules = 9;

/// The rule's name as written in policies and diagnostics
/// (`sensitive-op-precision`, ...).
llvm::StringRef getRuleName(Rule rule);
std::optional<Rule> getRuleByName(llvm::StringRef name);
/// One-sentence description of the rule (used by SARIF output and docs).
llvm::StringRef getRuleDescription(Rule rule);
llvm::StringRef getSeverityName(Severity severity);

/// An allow/deny list over precision kinds, checked on some properties.
struct PrecisionList {
  /// When non-empty, only these kinds are allowed.
  std::vector<PrecisionKind> allow;
  /// These kinds are never allowed.
  std::vector<PrecisionKind> deny;
  /// The properties the list applies to (default: weights, activations,
  /// output).
  std::vector<PrecisionProperty> properties = {PrecisionProperty::weights,
                                               PrecisionProperty::activations,
                                               PrecisionProperty::output};
  /// True when `kind` is allowed by this list.
  bool permits(PrecisionKind kind) const;
};

struct Policy {
  std::array<Severity, kNumRules> severity;
  /// sensitive-op-precision: the least precision normalization, softmax and
  /// losses compute in (f32 or f64).
  PrecisionKind sensitiveMinimum = PrecisionKind::f32;
  /// reduced-precision-reduction: precisions flagged for reductions (at
  /// accumulator precision) and exp (at activations precision).
  std::vector<PrecisionKind> reducedPrecisions = {PrecisionKind::f16};
  /// op-precision-list: by op kind (`conv2d`, ...).
  llvm::StringMap<PrecisionList> ops;
  /// block-precision-list: by block name (without `@`), applied to every
  /// layer nested in such a block.
  llvm::StringMap<PrecisionList> blocks;

  Severity getSeverity(Rule rule) const {
    return severity[static_cast<unsigned>(rule)];
  }
  void setSeverity(Rule rule, Severity s) {
    severity[static_cast<unsigned>(rule)] = s;
  }

  /// The built-in default policy.
  static Policy getDefault();
};

/// Parses a JSON policy. `sourceName` prefixes error messages, which name
/// the place in the document (`line:col` for syntax errors, a JSON path such
/// as `$.rules["redundant-override"]` for semantic ones).
llvm::Expected<Policy> parsePolicy(llvm::StringRef json,
                                   llvm::StringRef sourceName);

/// Reads and parses a policy file.
llvm::Expected<Policy> loadPolicyFile(llvm::StringRef path);

/// The op kinds a policy may name in `ops` (every mix layer op).
llvm::ArrayRef<llvm::StringRef> getLayerKinds();

} // namespace mix

#endif // MIXC_PASSES_POLICY_H
