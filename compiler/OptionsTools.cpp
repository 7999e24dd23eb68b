//===- OptionsTools.cpp - the command lines of mixc and mix-lint ----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The options of mixc and mix-lint, bound once to CompileOptions and
// LintOptions; parsing and --help both come from these bindings.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver.h"
#include "compiler/LintDriver.h"
#include "compiler/Options.h"

using namespace mix;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// mixc
//===----------------------------------------------------------------------===//

static const char kMixcOverview[] =
    "usage: mixc MODEL.mlir [-o OUT] [options]\n"
    "\n"
    "Compiles the networks of a mix model ahead of time: writes OUT.o (an\n"
    "object file for the target) and OUT.h (a C header declaring the entry\n"
    "points). OUT defaults to the model's name in the current directory.\n"
    "\n"
    "Options ('--name=VALUE' or '--name VALUE'):\n";

static const char kMixcEpilogue[] =
    "Exit codes: 0 success, 1 compilation error (nothing written), 2 bad "
    "usage.\n";

OptionText mix::optimizationLevelText() {
  OptionText level;
  level.check = [](llvm::StringRef v) -> std::optional<std::string> {
    if (v.size() == 1 && v[0] >= '0' && v[0] <= '3')
      return std::nullopt;
    return "not 0 to 3";
  };
  level.badValue = [](llvm::StringRef v) {
    return ("unknown optimization level '-O" + v +
            "' (expected -O0, -O1, -O2 or -O3)")
        .str();
  };
  return level;
}

void CompileOptions::bindOptions(OptionsBinder &b) {
  b.heading("Output");
  b.opt("o", outputStem, {"an output name"}, cl::value_desc("OUT"),
        cl::desc("output stem: OUT.o, OUT.h, ... (an extension\n"
                 "of OUT is dropped)"));
  b.alias("output", "o");
  b.opt("emit", emit, {}, cl::value_desc("KIND"),
        cl::desc("what to write (default: obj)"),
        cl::values(
            clEnumValN(EmitKind::object, "obj", "OUT.o + OUT.h"),
            clEnumValN(EmitKind::header, "header", "OUT.h"),
            clEnumValN(EmitKind::assembly, "asm", "OUT.s + OUT.h"),
            clEnumValN(EmitKind::llvmIR, "llvm", "OUT.ll (optimized LLVM IR)"),
            clEnumValN(EmitKind::mlir, "mlir", "OUT.mlir (LLVM dialect)")));
  b.opt("report", reportJSONPath, {"a file name"}, cl::value_desc("FILE"),
        cl::desc("precision report as JSON ('-': stdout)"));
  b.opt("report-text", reportTextPath, {"a file name"}, cl::value_desc("FILE"),
        cl::desc("precision report as text ('-': stdout)"));
  b.opt("report-html", reportHTMLPath, {"a file name"}, cl::value_desc("FILE"),
        cl::desc("the precision map: the report as one\n"
                 "self-contained HTML page ('-': stdout)"));

  b.heading("Model");
  b.opt("weights", weightsPath, {"a file name"}, cl::value_desc("FILE"),
        cl::desc("bind external weights from a safetensors file"));
  b.opt("precision-plan", precisionPlanPath, {"a file name"},
        cl::value_desc("FILE"),
        cl::desc("precisions for an ONNX model (docs/onnx.md)"));
  b.list("entry", entries, {"a network name"}, cl::value_desc("NAME"),
         cl::desc("compile only network @NAME (repeatable)"));
  b.flag("train", train, true,
         cl::desc("also compile the training step of every network\n"
                  "ending in a loss: NAME_train_init/step/export\n"
                  "in the header (docs/training.md)"));
  b.opt("policy", pipeline.policyPath.getValue(), {"a file name"},
        cl::value_desc("FILE"),
        cl::desc("precision policy (default: built-in)"));
  b.flag("no-policy", pipeline.verifyPolicy.getValue(), false,
         cl::desc("do not check the precision policy"));
  b.opt("calibration", pipeline.calibrationPath.getValue(), {"a file name"},
        cl::value_desc("FILE"),
        cl::desc("static int8 activation scales (default: dynamic)"));
  b.flag("split-k", pipeline.splitK.getValue(), true,
         cl::desc("split K of int8 layers whose i32 sums could\n"
                  "overflow (default: reject them)"));
  b.opt("weight-granularity", pipeline.weightGranularity.getValue(), {},
        cl::value_desc("G"), cl::desc("scales of int8 weights"),
        cl::values(
            clEnumValN(WeightGranularity::channel, "channel",
                       "one per output channel (default)"),
            clEnumValN(WeightGranularity::tensor, "tensor", "one per tensor")));
  b.flag("per-tensor-weights", pipeline.weightGranularity.getValue(),
         WeightGranularity::tensor,
         cl::desc("same as --weight-granularity=tensor"));
  b.flag("no-checks", pipeline.checkedCasts.getValue(), false,
         cl::desc("no run-time checks of narrowing casts and\n"
                  "int8 quantization"));

  b.heading("Code generation");
  b.opt("target-triple", targetTriple, {}, cl::value_desc("TRIPLE"),
        cl::desc("default: the host"));
  b.opt("target-cpu", targetCPU, {}, cl::value_desc("CPU"),
        cl::desc("default: the host CPU and its features"));
  b.flag("freestanding", freestanding, true,
         cl::desc("no heap: only the entry taking a workspace, and\n"
                  "a header needing only mixrt/core.h (implied for\n"
                  "targets without an OS)"));
  b.flag("no-fold-batch-norm", pipeline.foldBatchNorm.getValue(), false,
         cl::desc("keep batch_norm layers after conv2d layers\n"
                  "instead of folding them into the weights"));
  b.flag("no-microkernels", pipeline.microkernels.getValue(), false,
         cl::desc("keep the generated loops of dense GEMMs instead\n"
                  "of calling mixrt's microkernels"));
  b.opt("O", optLevel, optimizationLevelText(), cl::Prefix, cl::value_desc("N"),
        cl::desc("LLVM optimization level -O0 to -O3 (default: -O2)"));

  b.heading("Other");
  b.flag("verbose", verbose, true,
         cl::desc("notes on the target, unused weights, files, the time of "
                  "each phase"));
  b.alias("v", "verbose");
  b.flag("timing", timing, true,
         cl::desc("print the time of every pass of the pipeline"));
  b.opt("progress", progress, {}, cl::value_desc("WHEN"),
        cl::desc("say what the compilation is doing"),
        cl::values(clEnumValN(ProgressMode::automatic, "auto",
                              "a status line on a terminal after 2 s "
                              "(default)"),
                   clEnumValN(ProgressMode::always, "always",
                              "a line per phase, pass and tenth of the "
                              "functions"),
                   clEnumValN(ProgressMode::never, "never", "nothing")));
  b.flag("help", help, true, cl::desc("print this help"));
  b.alias("h", "help");
  b.flag("version", version, true, cl::desc("print the versions"));
}

llvm::Expected<CompileOptions>
mix::parseMixcCommandLine(llvm::ArrayRef<const char *> args) {
  CompileOptions options;
  std::vector<std::string> models;
  {
    OptionsBinder binder;
    options.bindOptions(binder);
    binder.positional("MODEL.mlir", "the model ('-': standard input)", models);
    if (llvm::Error error = binder.parse(args))
      return std::move(error);
    if (options.help || options.version)
      return options;
    if (binder.occurrences("policy") && binder.occurrences("no-policy"))
      return llvm::createStringError(
          "--policy and --no-policy exclude each other");
  }
  if (models.empty())
    return llvm::createStringError("no model given");
  if (models.size() > 1)
    return llvm::createStringError("more than one model given ('" + models[0] +
                                   "' and '" + models[1] + "')");
  options.modelPath = models[0];
  for (std::string &entry : options.entries)
    entry = llvm::StringRef(entry).ltrim('@').str();
  return options;
}

void mix::printMixcHelp(llvm::raw_ostream &os) {
  CompileOptions options;
  std::vector<std::string> models;
  OptionsBinder binder;
  options.bindOptions(binder);
  binder.positional("MODEL.mlir", "the model ('-': standard input)", models);
  binder.printHelp(os, kMixcOverview, kMixcEpilogue);
}

//===----------------------------------------------------------------------===//
// mix-lint
//===----------------------------------------------------------------------===//

static const char kLintOverview[] =
    "usage: mix-lint MODEL.mlir [--policy POLICY.json] "
    "[--format text|json|sarif] [--explain]\n"
    "       mix-lint MODEL.mlir --format html -o MAP.html [--policy "
    "POLICY.json]\n"
    "\n"
    "Checks the resolved precisions of a mix model against a precision "
    "policy.\n"
    "Exit codes: 0 clean (warnings allowed), 1 policy errors, 2 bad input.\n"
    "\n"
    "Options ('--name=VALUE' or '--name VALUE'):\n";

void LintOptions::bindOptions(OptionsBinder &b) {
  b.opt("policy", policyPath, {"a file name"}, cl::value_desc("FILE"),
        cl::desc("precision policy (JSON; default: built-in)"));
  b.opt("precision-plan", precisionPlanPath, {"a file name"},
        cl::value_desc("FILE"),
        cl::desc("precisions for an ONNX model (docs/onnx.md)"));
  OptionText formatText;
  formatText.badValue = [](llvm::StringRef v) {
    return ("unknown format '" + v + "' (expected text, json, sarif or html)")
        .str();
  };
  b.opt("format", format, formatText, cl::value_desc("FORMAT"),
        cl::desc("how findings are printed (default: text)"),
        cl::values(clEnumValN(LintFormat::text, "text",
                              "FILE:LINE:COL: severity: [rule] message"),
                   clEnumValN(LintFormat::json, "json", "one JSON document"),
                   clEnumValN(LintFormat::sarif, "sarif", "SARIF 2.1.0"),
                   clEnumValN(LintFormat::html, "html",
                              "the precision map: one self-contained\n"
                              "HTML page (needs -o)")));
  b.opt("o", outputPath, {"a file name"}, cl::value_desc("FILE"),
        cl::desc("write to FILE instead of standard output\n"
                 "(all or nothing; '-': standard output)"));
  b.alias("output", "o");
  b.flag("explain", explain, true,
         cl::desc("also print every layer's resolved precisions\n"
                  "and where they come from"));
  b.flag("help", help, true, cl::desc("print this help"));
  b.alias("h", "help");
  b.flag("version", version, true, cl::desc("print the versions"));
}

llvm::Expected<LintOptions>
mix::parseLintCommandLine(llvm::ArrayRef<const char *> args) {
  LintOptions options;
  std::vector<std::string> models;
  {
    OptionsBinder binder;
    options.bindOptions(binder);
    binder.positional("MODEL.mlir", "the model ('-': standard input)", models);
    if (llvm::Error error = binder.parse(args))
      return std::move(error);
    if (options.help || options.version)
      return options;
  }
  if (models.empty())
    return llvm::createStringError("no model given");
  if (models.size() > 1)
    return llvm::createStringError("more than one model given ('" + models[0] +
                                   "' and '" + models[1] + "')");
  options.modelPath = models[0];
  if (options.format == LintFormat::html && options.outputPath.empty())
    return llvm::createStringError(
        "--format=html writes a page: give -o FILE ('-o -' for standard "
        "output)");
  return options;
}

void mix::printLintHelp(llvm::raw_ostream &os) {
  LintOptions options;
  std::vector<std::string> models;
  OptionsBinder binder;
  options.bindOptions(binder);
  binder.positional("MODEL.mlir", "the model ('-': standard input)", models);
  binder.printHelp(os, kLintOverview);
}
