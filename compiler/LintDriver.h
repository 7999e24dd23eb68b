//===- LintDriver.h - the mix-lint precision-policy gate ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The library behind `mix-lint`: load a policy and a model, resolve and
// check it, print findings as text, JSON or SARIF and, on request, the
// per-layer precision table; or draw it all as the precision map (HTML,
// PrecisionMap.h).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_LINTDRIVER_H
#define MIXC_COMPILER_LINTDRIVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mix {

class OptionsBinder;

enum class LintFormat { text, json, sarif, html };

struct LintOptions {
  /// The model file (`-` reads standard input).
  std::string modelPath;
  /// A JSON policy file; empty uses the built-in default policy.
  std::string policyPath;
  /// A precision plan for an ONNX model (docs/onnx.md).
  std::string precisionPlanPath;
  LintFormat format = LintFormat::text;
  /// Where the output goes: empty or `-` is standard output; a file is
  /// written all or nothing (OutputFiles), and not at all on bad input.
  /// `--format=html` requires it.
  std::string outputPath;
  /// Also print every layer's resolved precisions and their provenance.
  bool explain = false;
  /// `--help` / `--version` was given: print it instead of linting.
  bool help = false;
  bool version = false;

  /// Binds every option of mix-lint's command line to these fields.
  void bindOptions(OptionsBinder &binder);
};

/// mix-lint's exit codes.
enum LintExitCode : int {
  kLintClean = 0,        ///< no policy errors (warnings allowed)
  kLintPolicyErrors = 1, ///< at least one finding of severity error
  kLintBadInput = 2,     ///< unreadable/invalid model or policy, bad usage
};

/// Runs the lint. Findings and tables go to `out`; a one-line error for bad
/// input goes to `err`.
int runLint(const LintOptions &options, llvm::raw_ostream &out,
            llvm::raw_ostream &err);

/// Parses mix-lint's command line (without argv[0]); the error is one line
/// without a prefix. Parsing touches no global state.
llvm::Expected<LintOptions>
parseLintCommandLine(llvm::ArrayRef<const char *> args);

/// Prints mix-lint's --help.
void printLintHelp(llvm::raw_ostream &os);

/// Parses mix-lint's command line (without argv[0]) and runs it.
int lintMain(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out,
             llvm::raw_ostream &err);

} // namespace mix

#endif // MIXC_COMPILER_LINTDRIVER_H
