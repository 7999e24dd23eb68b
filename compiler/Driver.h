//===- Driver.h - mixc, the ahead-of-time compiler driver -----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The library behind `mixc`: load a model, bind its external weights, run
// the mix pipeline down to the LLVM dialect, translate to LLVM IR, optimize
// for a target machine and write an object file (or assembly, LLVM IR, the
// lowered MLIR) plus a C header declaring the entry points, and, on request,
// the precision report.
//
// Outputs are all or nothing: every file is produced in memory, written to a
// temporary file beside its destination and renamed only once every output
// exists; on any failure no output (and no directory this run created) is
// left behind.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_DRIVER_H
#define MIXC_COMPILER_DRIVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mix {

/// What `--emit` asks for.
enum class EmitKind {
  object,   ///< obj: <out>.o and <out>.h
  header,   ///< header: <out>.h only
  assembly, ///< asm: <out>.s and <out>.h
  llvmIR,   ///< llvm: <out>.ll, the LLVM IR after optimization
  mlir,     ///< mlir: <out>.mlir, the module in the LLVM dialect
};

struct CompileOptions {
  /// The model file (`-` reads standard input).
  std::string modelPath;
  /// The output stem: `out/model` writes `out/model.o`, `out/model.h`, ...
  /// Empty: the model's file name without extension, in the current
  /// directory.
  std::string outputStem;
  EmitKind emit = EmitKind::object;
  /// Run mix-verify-policy, with `policyPath` (empty: the built-in policy).
  bool verifyPolicy = true;
  std::string policyPath;
  /// Static int8 activation scales from this calibration file (empty:
  /// dynamic scales).
  std::string calibrationPath;
  /// Safetensors file binding the model's external weights.
  std::string weightsPath;
  /// Empty: the host (triple, CPU name and CPU features).
  std::string targetTriple;
  std::string targetCPU;
  /// LLVM optimization level (IR passes and code generation), 0 to 3.
  unsigned optLevel = 2;
  /// Networks to compile; empty: all.
  std::vector<std::string> entries;
  bool splitK = false;
  bool perTensorWeights = false;
  bool checkedCasts = true;
  /// PrecisionReport::toJSON (pretty) / PrecisionReport::print to these
  /// files; `-` is standard output. Empty: no report.
  std::string reportJSONPath;
  std::string reportTextPath;
  /// Notes on standard error: the target, unused weights, files written.
  bool verbose = false;
};

/// mixc's exit codes.
enum MixcExitCode : int {
  kMixcSuccess = 0, ///< every output written
  kMixcError = 1,   ///< the model (or a file it needs) cannot be compiled
  kMixcUsage = 2,   ///< bad command line (options, target)
};

/// "0.1.0".
const char *getMixcVersion();

/// Compiles. A failure prints one line `mixc: error: ...` to `err` (policy
/// warnings are printed as `mixc: warning: ...` lines before it); reports
/// requested on `-` go to `out`.
int runMixc(const CompileOptions &options, llvm::raw_ostream &out,
            llvm::raw_ostream &err);

/// Parses mixc's command line (without argv[0]) and runs it.
int mixcMain(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out,
             llvm::raw_ostream &err);

} // namespace mix

#endif // MIXC_COMPILER_DRIVER_H
