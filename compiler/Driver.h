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

#include "compiler/Pipeline.h"
#include "compiler/Progress.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mix {

class OptionsBinder;

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
  /// The pipeline: policy (`--policy`, `--no-policy`), run-time checks
  /// (`--no-checks`), calibration, split-K, weight granularity. mixc runs it
  /// in stages (startAt/stopAfter are set per stage).
  MixPipelineOptions pipeline;
  /// Safetensors file binding the model's external weights.
  std::string weightsPath;
  /// A precision plan for an ONNX model (docs/onnx.md).
  std::string precisionPlanPath;
  /// Empty: the host (triple, CPU name and CPU features).
  std::string targetTriple;
  std::string targetCPU;
  /// Freestanding code: no heap (no entry that allocates the workspace)
  /// and a header that needs only mixrt's freestanding core. Implied for a
  /// target without an operating system (`thumbv7em-none-eabihf`).
  bool freestanding = false;
  /// `--train`: also compile, for every network ending in a loss, its
  /// gradient network and initial weights (mix-differentiate
  /// {weights-as-inputs}), and put the training step in the header.
  bool train = false;
  /// LLVM optimization level (IR passes and code generation), 0 to 3.
  unsigned optLevel = 2;
  /// Networks to compile; empty: all.
  std::vector<std::string> entries;
  /// PrecisionReport::toJSON (pretty) / PrecisionReport::print to these
  /// files; `-` is standard output. Empty: no report.
  std::string reportJSONPath;
  std::string reportTextPath;
  /// The precision map of the compiled model (PrecisionMap.h), an HTML page.
  std::string reportHTMLPath;
  /// Notes on standard error: the target, unused weights, files written,
  /// the time of each phase.
  bool verbose = false;
  /// MLIR's timing report of the pipeline (per pass) on standard error.
  bool timing = false;
  /// What the compilation is doing, on standard error (Progress.h): on a
  /// terminal after two seconds (automatic), always, or never.
  ProgressMode progress = ProgressMode::automatic;
  /// `--help` / `--version` was given: print it instead of compiling.
  bool help = false;
  bool version = false;

  /// Binds every option of mixc's command line to these fields.
  void bindOptions(OptionsBinder &binder);
};

/// mixc's exit codes.
enum MixcExitCode : int {
  kMixcSuccess = 0, ///< every output written
  kMixcError = 1,   ///< the model (or a file it needs) cannot be compiled
  kMixcUsage = 2,   ///< bad command line (options, target)
};

/// Parses mixc's command line (without argv[0]). The error is one line
/// without a prefix ("no model given"). Parsing touches no global state.
llvm::Expected<CompileOptions>
parseMixcCommandLine(llvm::ArrayRef<const char *> args);

/// Prints mixc's --help.
void printMixcHelp(llvm::raw_ostream &os);

/// Compiles. Every error of the model is printed to `err` as
/// `mixc: error: FILE:LINE:COL: message` with the source line, a caret and
/// its notes, policy warnings as `mixc: warning: ...` lines; reports
/// requested on `-` go to `out`.
int runMixc(const CompileOptions &options, llvm::raw_ostream &out,
            llvm::raw_ostream &err);

/// Parses mixc's command line (without argv[0]) and runs it.
int mixcMain(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out,
             llvm::raw_ostream &err);

} // namespace mix

#endif // MIXC_COMPILER_DRIVER_H
