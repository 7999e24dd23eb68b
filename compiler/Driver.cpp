//===- Driver.cpp - mixc, the ahead-of-time compiler driver ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver.h"
#include "compiler/Header.h"
#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"
#include "compiler/Report.h"
#include "compiler/Weights.h"
#include "dialect/MixOps.h"
#include "io/Calibration.h"
#include "io/Safetensors.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "passes/Policy.h"
#include "support/Error.h"
#include "support/OutputFiles.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#ifndef MIXC_VERSION_STRING
#define MIXC_VERSION_STRING "unknown"
#endif

using namespace mlir;
using namespace mix;

const char *mix::getMixcVersion() { return MIXC_VERSION_STRING; }

namespace {

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

/// The host's CPU features as "+avx2,+fma,-avx512f,..." (sorted, so the
/// output does not depend on hash order).
std::string getHostFeatures() {
  std::map<std::string, bool> sorted;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    sorted[feature.getKey().str()] = feature.getValue();
  llvm::SubtargetFeatures features;
  for (const auto &[name, enabled] : sorted)
    features.AddFeature(name, enabled);
  return features.getString();
}

struct Target {
  llvm::Triple triple;
  std::string cpu;
  std::string features;
  std::unique_ptr<llvm::TargetMachine> machine;
};

/// The target machine of the options. Errors are usage errors.
llvm::Expected<Target> selectTarget(const CompileOptions &options) {
  initializeTargets();
  Target target;
  llvm::Triple host(llvm::sys::getProcessTriple());
  target.triple =
      options.targetTriple.empty()
          ? host
          : llvm::Triple(llvm::Triple::normalize(options.targetTriple));
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!llvmTarget)
    return makeError("unknown --target-triple '" + options.targetTriple +
                     "': " + error);

  // The host CPU (with the host's features) unless another CPU or another
  // architecture is asked for.
  bool hostArch = target.triple.getArch() == host.getArch();
  if (options.targetCPU.empty() || options.targetCPU == "native") {
    if (hostArch) {
      target.cpu = llvm::sys::getHostCPUName().str();
      target.features = getHostFeatures();
    } else {
      target.cpu = "generic";
    }
  } else {
    target.cpu = options.targetCPU;
    std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
        llvmTarget->createMCSubtargetInfo(target.triple, "", ""));
    if (!subtarget || !subtarget->isCPUStringValid(target.cpu))
      return makeError("unknown --target-cpu '" + target.cpu + "' for " +
                       target.triple.str());
  }

  llvm::CodeGenOptLevel level;
  switch (options.optLevel) {
  case 0:
    level = llvm::CodeGenOptLevel::None;
    break;
  case 1:
    level = llvm::CodeGenOptLevel::Less;
    break;
  case 2:
    level = llvm::CodeGenOptLevel::Default;
    break;
  default:
    level = llvm::CodeGenOptLevel::Aggressive;
    break;
  }
  // Position-independent code links into executables (PIE) and shared
  // libraries alike.
  target.machine.reset(llvmTarget->createTargetMachine(
      target.triple, target.cpu, target.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, level));
  if (!target.machine)
    return makeError("cannot create a target machine for " +
                     target.triple.str());
  return std::move(target);
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

const char *extensionOf(EmitKind kind) {
  switch (kind) {
  case EmitKind::object:
    return ".o";
  case EmitKind::header:
    return ".h";
  case EmitKind::assembly:
    return ".s";
  case EmitKind::llvmIR:
    return ".ll";
  case EmitKind::mlir:
    return ".mlir";
  }
  llvm_unreachable("unknown emit kind");
}

bool needsHeader(EmitKind kind) {
  return kind == EmitKind::object || kind == EmitKind::header ||
         kind == EmitKind::assembly;
}

/// The arity of a network, to check the lowered entry point against.
struct EntryPoint {
  std::string name;
  unsigned numInputs, numOutputs;
};

class Compilation {
public:
  Compilation(const CompileOptions &options, llvm::raw_ostream &out,
              llvm::raw_ostream &err)
      : options(options), out(out), err(err) {}

  int run();

private:
  int fail(const llvm::Twine &message) {
    err << "mixc: error: " << message << "\n";
    return kMixcError;
  }
  int fail(llvm::Error error) { return fail(llvm::toString(std::move(error))); }
  void note(const llvm::Twine &message) {
    if (options.verbose)
      err << "mixc: note: " << message << "\n";
  }

  /// Erases the networks that --entry does not name.
  llvm::Error selectEntries(ModuleOp module);
  /// Runs phases [start, stop] of the pipeline.
  llvm::Error runPhases(ModuleOp module, MixPhase start, MixPhase stop,
                        const FirstErrorCollector &errors);
  /// Checks that every network became `_mlir_ciface_NAME` taking one
  /// descriptor pointer per input and output.
  llvm::Error checkEntryPoints(ModuleOp module);
  /// Translates, optimizes and emits.
  llvm::Error emitCode(ModuleOp module, Target &target, OutputFiles &files);

  const CompileOptions &options;
  llvm::raw_ostream &out;
  llvm::raw_ostream &err;
  std::string stem;      // out/model
  std::string modelName; // model
  std::vector<EntryPoint> entryPoints;
};

llvm::Error Compilation::selectEntries(ModuleOp module) {
  if (options.entries.empty())
    return llvm::Error::success();
  SmallVector<NetworkOp> networks(module.getOps<NetworkOp>());
  for (const std::string &entry : options.entries)
    if (llvm::none_of(networks,
                      [&](NetworkOp n) { return n.getSymName() == entry; })) {
      std::string available;
      for (NetworkOp n : networks)
        available += (available.empty() ? "@" : ", @") + n.getSymName().str();
      return makeError(options.modelPath + ": no network @" + entry +
                       " (the model has " + available + ")");
    }
  for (NetworkOp n : networks)
    if (!llvm::is_contained(options.entries, n.getSymName()))
      n.erase();
  return llvm::Error::success();
}

llvm::Error Compilation::runPhases(ModuleOp module, MixPhase start,
                                   MixPhase stop,
                                   const FirstErrorCollector &errors) {
  MixPipelineOptions pipeline;
  pipeline.startAt = start;
  pipeline.stopAfter = stop;
  pipeline.verifyPolicy = options.verifyPolicy;
  pipeline.policyPath = options.policyPath;
  pipeline.checkedCasts = options.checkedCasts;
  pipeline.calibrationPath = options.calibrationPath;
  pipeline.splitK = options.splitK;
  pipeline.perTensorWeights = options.perTensorWeights;
  PassManager pm(module.getContext());
  if (failed(buildMixPipeline(pm, pipeline)))
    return makeError("internal error: cannot build the mix pipeline");
  if (failed(pm.run(module)))
    return makeError(errors.hasError()
                         ? errors.message()
                         : options.modelPath + ": compilation failed");
  return llvm::Error::success();
}

llvm::Error Compilation::checkEntryPoints(ModuleOp module) {
  for (const EntryPoint &entry : entryPoints) {
    std::string symbol = "_mlir_ciface_" + entry.name;
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(symbol);
    if (!func || func.isExternal() ||
        func.getNumArguments() != entry.numInputs + entry.numOutputs ||
        !isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()) ||
        !llvm::all_of(func.getArgumentTypes(),
                      llvm::IsaPred<LLVM::LLVMPointerType>))
      return makeError("internal error: the lowered network @" + entry.name +
                       " does not have the entry point " + symbol + "(" +
                       llvm::Twine(entry.numInputs + entry.numOutputs) +
                       " descriptor pointers)");
  }
  return llvm::Error::success();
}

llvm::Error Compilation::emitCode(ModuleOp module, Target &target,
                                  OutputFiles &files) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, modelName);
  if (!llvmModule)
    return makeError(options.modelPath +
                     ": cannot translate the lowered module to LLVM IR");
  llvmModule->setSourceFileName(options.modelPath);
  llvmModule->setTargetTriple(target.triple);
  llvmModule->setDataLayout(target.machine->createDataLayout());

  // Only the C interface is exported: the functions behind it (one per
  // network, taking expanded descriptors) become internal, so they cannot
  // clash with the application's symbols and may be inlined.
  for (const EntryPoint &entry : entryPoints)
    if (llvm::Function *f = llvmModule->getFunction(entry.name))
      if (!f->isDeclaration())
        f->setLinkage(llvm::GlobalValue::InternalLinkage);

  auto optimize =
      makeOptimizingTransformer(options.optLevel,
                                /*sizeLevel=*/0, target.machine.get());
  if (llvm::Error error = optimize(llvmModule.get()))
    return makeError("LLVM optimization failed: " +
                     llvm::toString(std::move(error)));

  if (options.emit == EmitKind::llvmIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    files.add(stem + ".ll", std::move(text));
    return llvm::Error::success();
  }

  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  auto fileType = options.emit == EmitKind::assembly
                      ? llvm::CodeGenFileType::AssemblyFile
                      : llvm::CodeGenFileType::ObjectFile;
  if (target.machine->addPassesToEmitFile(codegen, os, nullptr, fileType))
    return makeError(
        "the target " + target.triple.str() + " cannot emit " +
        (options.emit == EmitKind::assembly ? "assembly" : "object files"));
  codegen.run(*llvmModule);
  files.add(stem + extensionOf(options.emit), buffer.str().str());
  return llvm::Error::success();
}

int Compilation::run() {
  // Usage problems first: the outputs and the target.
  if (!options.outputStem.empty()) {
    // `-o out/model.o` means the stem `out/model`.
    stem = options.outputStem;
    llvm::StringRef ext = llvm::sys::path::extension(stem);
    if (llvm::is_contained({".o", ".h", ".s", ".ll", ".mlir"}, ext))
      stem.resize(stem.size() - ext.size());
  } else if (options.modelPath == "-") {
    err << "mixc: error: -o is required when the model is read from "
           "standard input\nrun 'mixc --help' for usage\n";
    return kMixcUsage;
  } else {
    stem = llvm::sys::path::stem(options.modelPath).str();
  }
  modelName = llvm::sys::path::filename(stem).str();
  if (modelName.empty() || llvm::sys::fs::is_directory(stem)) {
    err << "mixc: error: -o '" << stem
        << "' names a directory; give an output stem such as 'out/model'\n"
           "run 'mixc --help' for usage\n";
    return kMixcUsage;
  }

  // Two outputs must not be one file.
  std::vector<std::string> outputs;
  if (options.emit != EmitKind::header)
    outputs.push_back(stem + extensionOf(options.emit));
  if (needsHeader(options.emit))
    outputs.push_back(stem + ".h");
  for (const std::string *report :
       {&options.reportJSONPath, &options.reportTextPath})
    if (!report->empty() && *report != "-")
      outputs.push_back(*report);
  auto normalize = [](llvm::StringRef path) {
    llvm::SmallString<256> normalized(path);
    llvm::sys::fs::make_absolute(normalized);
    llvm::sys::path::remove_dots(normalized, /*remove_dot_dot=*/true);
    return normalized.str().str();
  };
  std::set<std::string> seen;
  for (const std::string &path : outputs) {
    if (!seen.insert(normalize(path)).second) {
      err << "mixc: error: two outputs would be written to '" << path
          << "'\nrun 'mixc --help' for usage\n";
      return kMixcUsage;
    }
  }
  // Nor may an output replace an input.
  for (const std::string *input :
       {&options.modelPath, &options.weightsPath, &options.policyPath,
        &options.calibrationPath}) {
    if (input->empty() || *input == "-")
      continue;
    for (const std::string &path : outputs)
      if (normalize(path) == normalize(*input) ||
          llvm::sys::fs::equivalent(path, *input)) {
        err << "mixc: error: the output '" << path
            << "' would overwrite the input '" << *input
            << "'\nrun 'mixc --help' for usage\n";
        return kMixcUsage;
      }
  }

  llvm::Expected<Target> target = selectTarget(options);
  if (!target) {
    err << "mixc: error: " << llvm::toString(target.takeError())
        << "\nrun 'mixc --help' for usage\n";
    return kMixcUsage;
  }
  note("target " + target->triple.str() + ", cpu " + target->cpu + ", -O" +
       llvm::Twine(options.optLevel));

  // The files the model needs, checked before the model so that their
  // errors name them rather than a place in the pipeline.
  if (options.verifyPolicy && !options.policyPath.empty())
    if (llvm::Expected<Policy> policy = loadPolicyFile(options.policyPath);
        !policy)
      return fail(policy.takeError());
  if (!options.calibrationPath.empty())
    if (llvm::Expected<io::CalibrationTable> table =
            io::readCalibration(options.calibrationPath);
        !table)
      return fail(table.takeError());

  DialectRegistry registry;
  registerMixPipelineDependencies(registry);
  MLIRContext context(registry);
  loadMixDialects(context);
  llvm::Expected<OwningOpRef<ModuleOp>> loaded =
      loadModel(options.modelPath, context);
  if (!loaded)
    return fail(loaded.takeError());
  ModuleOp module = **loaded;
  if (llvm::Error error = selectEntries(module))
    return fail(std::move(error));

  // Weights.
  if (!options.weightsPath.empty()) {
    llvm::Expected<io::SafetensorsFile> file =
        io::SafetensorsFile::open(options.weightsPath);
    if (!file)
      return fail(file.takeError());
    std::vector<std::string> unused;
    if (llvm::Error error = bindWeights(module, *file, &unused))
      return fail(std::move(error));
    if (!unused.empty())
      note(llvm::Twine(unused.size()) + " tensor(s) of " + options.weightsPath +
           " not used by the model: " + llvm::join(unused, ", "));
  } else if (llvm::Error error = requireInlineWeights(module)) {
    return fail(std::move(error));
  }

  // The C signatures, before the pipeline replaces the networks.
  for (NetworkOp network : module.getOps<NetworkOp>())
    entryPoints.push_back(
        {network.getSymName().str(),
         static_cast<unsigned>(network.getNumArguments()),
         static_cast<unsigned>(network.getResultTypes().size())});
  std::vector<NetworkSignature> signatures;
  if (needsHeader(options.emit)) {
    llvm::Expected<std::vector<NetworkSignature>> collected =
        collectNetworkSignatures(module);
    if (!collected)
      return fail(collected.takeError());
    signatures = std::move(*collected);
  }

  // The pipeline, in three stages so that the report can look in between.
  // Policy warnings are printed; the first error is the one-line message.
  FirstErrorCollector errors(context);
  ScopedDiagnosticHandler warnings(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Warning)
      return failure(); // on to the collector
    err << "mixc: warning: " << formatLocation(diag.getLocation()) << ": "
        << diag.str() << "\n";
    return success();
  });
  std::optional<PrecisionReport> report;
  if (!options.reportJSONPath.empty() || !options.reportTextPath.empty())
    report.emplace();
  if (report && failed(report->recordModel(module)))
    return fail(errors.hasError()
                    ? errors.message()
                    : options.modelPath + ": cannot record the precision "
                                          "report");
  if (llvm::Error error =
          runPhases(module, MixPhase::resolve, MixPhase::casts, errors))
    return fail(std::move(error));
  if (report)
    report->recordCasts(module);
  if (llvm::Error error =
          runPhases(module, MixPhase::quantize, MixPhase::quantize, errors))
    return fail(std::move(error));
  if (report)
    report->recordQuantized(module);
  if (llvm::Error error =
          runPhases(module, MixPhase::linalg, MixPhase::llvm, errors))
    return fail(std::move(error));
  if (llvm::Error error = checkEntryPoints(module))
    return fail(std::move(error));

  // The outputs, in memory.
  OutputFiles files;
  switch (options.emit) {
  case EmitKind::mlir: {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    files.add(stem + ".mlir", std::move(text));
    break;
  }
  case EmitKind::header:
    break;
  case EmitKind::object:
  case EmitKind::assembly:
  case EmitKind::llvmIR:
    if (llvm::Error error = emitCode(module, *target, files))
      return fail(std::move(error));
    break;
  }
  if (needsHeader(options.emit)) {
    HeaderInfo info;
    info.modelName = modelName;
    info.sourceName = options.modelPath == "-"
                          ? "<stdin>"
                          : llvm::sys::path::filename(options.modelPath).str();
    info.version = getMixcVersion();
    files.add(stem + ".h", generateHeader(signatures, info));
  }
  std::string reportJSON, reportText;
  if (report) {
    if (!options.reportJSONPath.empty()) {
      llvm::raw_string_ostream os(reportJSON);
      os << llvm::formatv("{0:2}", report->toJSON()) << "\n";
      if (options.reportJSONPath != "-")
        files.add(options.reportJSONPath, reportJSON);
    }
    if (!options.reportTextPath.empty()) {
      llvm::raw_string_ostream os(reportText);
      report->print(os);
      if (options.reportTextPath != "-")
        files.add(options.reportTextPath, reportText);
    }
  }

  if (llvm::Error error = files.commit())
    return fail(std::move(error));
  for (const std::string &path : files.paths())
    note("wrote " + path);
  if (options.reportJSONPath == "-")
    out << reportJSON;
  if (options.reportTextPath == "-")
    out << reportText;
  out.flush();
  return kMixcSuccess;
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

const char kUsage[] =
    "usage: mixc MODEL.mlir [-o OUT] [options]\n"
    "\n"
    "Compiles the networks of a mix model ahead of time: writes OUT.o (an\n"
    "object file for the target) and OUT.h (a C header declaring the entry\n"
    "points). OUT defaults to the model's name in the current directory.\n"
    "\n"
    "Output:\n"
    "  -o OUT                    output stem: OUT.o, OUT.h, ... (an\n"
    "                            extension of OUT is dropped)\n"
    "  --emit=KIND               obj (default): OUT.o + OUT.h; header: OUT.h;\n"
    "                            asm: OUT.s + OUT.h; llvm: OUT.ll (optimized\n"
    "                            LLVM IR); mlir: OUT.mlir (LLVM dialect)\n"
    "  --report=FILE             precision report as JSON ('-': stdout)\n"
    "  --report-text=FILE        precision report as text ('-': stdout)\n"
    "Model:\n"
    "  --weights=FILE            bind external weights from a safetensors "
    "file\n"
    "  --entry=NAME              compile only network @NAME (repeatable)\n"
    "  --policy=FILE             precision policy (default: built-in)\n"
    "  --no-policy               do not check the precision policy\n"
    "  --calibration=FILE        static int8 activation scales (default: "
    "dynamic)\n"
    "  --split-k                 split K of int8 layers whose i32 sums could\n"
    "                            overflow (default: reject them)\n"
    "  --per-tensor-weights      one int8 weight scale per tensor (default:\n"
    "                            per output channel)\n"
    "  --no-checks               no run-time checks of narrowing casts and\n"
    "                            int8 quantization\n"
    "Code generation:\n"
    "  --target-triple=TRIPLE    default: the host\n"
    "  --target-cpu=CPU          default: the host CPU and its features\n"
    "  -O0, -O1, -O2, -O3        LLVM optimization level (default: -O2)\n"
    "Other:\n"
    "  -v, --verbose             notes on the target, unused weights, files\n"
    "  --version, -h, --help\n"
    "\n"
    "Exit codes: 0 success, 1 compilation error (nothing written), 2 bad "
    "usage.\n";

} // namespace

int mix::runMixc(const CompileOptions &options, llvm::raw_ostream &out,
                 llvm::raw_ostream &err) {
  return Compilation(options, out, err).run();
}

int mix::mixcMain(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out,
                  llvm::raw_ostream &err) {
  CompileOptions options;
  bool haveModel = false;
  bool policyGiven = false, noPolicy = false;
  auto usageError = [&](const llvm::Twine &message) {
    err << "mixc: error: " << message << "\n"
        << "run 'mixc --help' for usage\n";
    return kMixcUsage;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    // "--opt value" and "--opt=value". Yields the value, or an error message
    // if it is missing or empty; std::nullopt if `arg` is not `name`.
    std::optional<std::string> missing;
    auto value = [&](llvm::StringRef name,
                     std::string &dest) -> std::optional<bool> {
      if (arg == name) {
        if (i + 1 >= args.size() || llvm::StringRef(args[i + 1]).empty())
          return false;
        dest = args[++i];
        return true;
      }
      llvm::StringRef rest = arg;
      if (rest.consume_front(name) && rest.consume_front("=")) {
        dest = rest.str();
        return !dest.empty();
      }
      return std::nullopt;
    };
    auto fileOption = [&](llvm::StringRef name,
                          std::string &dest) -> std::optional<bool> {
      std::optional<bool> got = value(name, dest);
      if (got && !*got)
        missing = (name + " needs a file name").str();
      return got;
    };
    std::string text;

    if (arg == "-h" || arg == "--help") {
      out << kUsage;
      return kMixcSuccess;
    }
    if (arg == "--version") {
      out << "mixc " << getMixcVersion() << "\n"
          << "LLVM " << LLVM_VERSION_STRING << "\n"
          << "host target: " << llvm::sys::getProcessTriple()
          << ", cpu: " << llvm::sys::getHostCPUName() << "\n";
      return kMixcSuccess;
    }
    if (arg == "-v" || arg == "--verbose") {
      options.verbose = true;
      continue;
    }
    if (arg == "--no-policy") {
      noPolicy = true;
      continue;
    }
    if (arg == "--split-k") {
      options.splitK = true;
      continue;
    }
    if (arg == "--per-tensor-weights") {
      options.perTensorWeights = true;
      continue;
    }
    if (arg == "--no-checks") {
      options.checkedCasts = false;
      continue;
    }
    if (arg.starts_with("-O")) {
      llvm::StringRef level = arg.drop_front(2);
      if (level.size() != 1 || level[0] < '0' || level[0] > '3')
        return usageError("unknown optimization level '" + arg +
                          "' (expected -O0, -O1, -O2 or -O3)");
      options.optLevel = level[0] - '0';
      continue;
    }
    if (arg == "-o" || arg == "--output" || arg.starts_with("--output=")) {
      std::optional<bool> got =
          value(arg == "-o" ? "-o" : "--output", options.outputStem);
      if (!*got)
        return usageError(arg.split('=').first + " needs an output name");
      continue;
    }
    if (auto got = value("--emit", text)) {
      if (!*got)
        return usageError(
            "--emit needs a value: obj, header, asm, llvm or mlir");
      std::optional<EmitKind> kind =
          llvm::StringSwitch<std::optional<EmitKind>>(text)
              .Case("obj", EmitKind::object)
              .Case("header", EmitKind::header)
              .Case("asm", EmitKind::assembly)
              .Case("llvm", EmitKind::llvmIR)
              .Case("mlir", EmitKind::mlir)
              .Default(std::nullopt);
      if (!kind)
        return usageError("unknown --emit value '" + text +
                          "' (expected obj, header, asm, llvm or mlir)");
      options.emit = *kind;
      continue;
    }
    if (auto got = value("--entry", text)) {
      if (!*got)
        return usageError("--entry needs a network name");
      options.entries.push_back(llvm::StringRef(text).ltrim('@').str());
      continue;
    }
    if (auto got = value("--target-triple", options.targetTriple)) {
      if (!*got)
        return usageError("--target-triple needs a value");
      continue;
    }
    if (auto got = value("--target-cpu", options.targetCPU)) {
      if (!*got)
        return usageError("--target-cpu needs a value");
      continue;
    }
    std::optional<bool> got;
    if ((got = fileOption("--policy", options.policyPath)))
      policyGiven = true;
    else if ((got = fileOption("--calibration", options.calibrationPath)) ||
             (got = fileOption("--weights", options.weightsPath)) ||
             (got = fileOption("--report", options.reportJSONPath)) ||
             (got = fileOption("--report-text", options.reportTextPath))) {
    }
    if (missing)
      return usageError(*missing);
    if (got)
      continue;

    if (arg.size() > 1 && arg.starts_with("-"))
      return usageError("unknown option '" + arg + "'");
    if (haveModel)
      return usageError("more than one model given ('" + options.modelPath +
                        "' and '" + arg + "')");
    options.modelPath = arg.str();
    haveModel = true;
  }
  if (!haveModel)
    return usageError("no model given");
  if (policyGiven && noPolicy)
    return usageError("--policy and --no-policy exclude each other");
  options.verifyPolicy = !noPolicy;
  return runMixc(options, out, err);
}
