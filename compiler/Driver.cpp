//===- Driver.cpp - mixc, the ahead-of-time compiler driver ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver.h"
#include "compiler/CodeSize.h"
#include "compiler/Diagnostics.h"
#include "compiler/Header.h"
#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "compiler/Pipeline.h"
#include "compiler/PrecisionMap.h"
#include "compiler/Report.h"
#include "compiler/Target.h"
#include "compiler/Weights.h"
#include "dialect/MixAttrNames.h"
#include "dialect/MixOps.h"
#include "io/Calibration.h"
#include "io/Safetensors.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "passes/Differentiate.h"
#include "passes/NetworkSymbols.h"
#include "passes/Passes.h"
#include "passes/Policy.h"
#include "passes/PolicyCheck.h"
#include "support/Error.h"
#include "support/OutputFiles.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Pass.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>

using namespace mlir;
using namespace mix;

namespace {

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
  /// From the lowering's mix.memory_plan.
  MemoryPlanSummary plan;
};

/// An error already printed as diagnostics.
llvm::Error reported() { return makeError(""); }

/// One run of mixc, in stages: plan the outputs and choose the target
/// (usage errors), check the input files, load the model, run the pipeline
/// (recording the report), emit and commit the outputs.
/// Reports each top-level pass of a pipeline run as the step of the
/// current phase: "pass 3 of 22 (one-shot-bufferize)".
class PassProgress : public PassInstrumentation {
public:
  PassProgress(Progress &progress, size_t numPasses)
      : progress(progress), numPasses(numPasses) {}
  void runBeforePass(Pass *pass, Operation *op) override {
    if (!isa<ModuleOp>(op))
      return;
    progress.setStep(llvm::formatv("pass {0} of {1} ({2})", ++index, numPasses,
                                   pass->getArgument())
                         .str());
  }

private:
  Progress &progress;
  size_t numPasses, index = 0;
};

/// The last pass of code generation: one tick per function emitted.
class CodegenProgressPass : public llvm::FunctionPass {
public:
  static char ID;
  explicit CodegenProgressPass(Progress &progress)
      : llvm::FunctionPass(ID), progress(progress) {}
  bool runOnFunction(llvm::Function &) override {
    progress.tick();
    return false;
  }
  void getAnalysisUsage(llvm::AnalysisUsage &usage) const override {
    usage.setPreservesAll();
  }
  llvm::StringRef getPassName() const override { return "mixc progress"; }

private:
  Progress &progress;
};
char CodegenProgressPass::ID = 0;

/// Functions with a body: what LLVM's pipelines and code generation visit.
uint64_t countDefinedFunctions(const llvm::Module &module) {
  return llvm::count_if(
      module, [](const llvm::Function &f) { return !f.isDeclaration(); });
}

class Compilation {
public:
  Compilation(const CompileOptions &options, llvm::raw_ostream &out,
              llvm::raw_ostream &err)
      : options(options), out(out), err(err) {}

  int run();

private:
  /// Prints `error` (unless its diagnostics were printed), then a summary
  /// when there was more than one error.
  int fail(llvm::Error error);
  int usageError(llvm::Error error) {
    err << "mixc: error: " << llvm::toString(std::move(error))
        << "\nrun 'mixc --help' for usage\n";
    return kMixcUsage;
  }
  void note(const llvm::Twine &message) {
    if (!options.verbose)
      return;
    if (progress)
      progress->clearLine();
    err << "mixc: note: " << message << "\n";
  }
  /// Runs `step`, and with -v notes how long phase `name` took.
  llvm::Error phase(llvm::StringRef name,
                    llvm::function_ref<llvm::Error()> step) {
    auto start = std::chrono::steady_clock::now();
    if (progress)
      progress->beginPhase(name, ++phaseIndex, phaseCount());
    llvm::Error error = step();
    if (!error && options.verbose)
      note(llvm::formatv("phase {0}: {1:f2} s", name,
                         std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count()));
    return error;
  }

  /// The output stem and the paths of every output; no two may be one file,
  /// nor an input.
  llvm::Error planOutputs();
  /// The policy and calibration files, read before the model so that their
  /// errors name them rather than a place in the pipeline.
  llvm::Error checkInputFiles();
  /// Parses and verifies the model, keeps the --entry networks, binds the
  /// weights and records the entry points and C signatures.
  llvm::Error load();
  /// Erases the networks that --entry does not name.
  llvm::Error selectEntries(ModuleOp module);
  /// --train: mix-differentiate{weights-as-inputs} on the loaded model.
  llvm::Error addTrainingNetworks(ModuleOp module);
  /// The pipeline in three stages, so that the report can look in between.
  llvm::Error runPipeline(std::optional<PrecisionReport> &report);
  /// Runs phases [start, stop] of the pipeline.
  llvm::Error runPhases(MixPhase start, MixPhase stop);
  /// Checks that every network became `_mlir_ciface_NAME` taking one
  /// descriptor pointer per input and output (unless freestanding) and
  /// `_mlir_ciface_mixc_net_NAME` taking the workspace too.
  llvm::Error checkEntryPoints(ModuleOp module);
  /// Freestanding code must not call the heap: an internal error at each
  /// call of a C allocation function left in the lowered module
  /// (mix-plan-memory places every buffer of a statically shaped network).
  llvm::Error checkNoHeap(ModuleOp module);
  /// Produces every output in memory, then commits them together.
  llvm::Error emit(Target &target, std::optional<PrecisionReport> &report);
  /// The medium code model for an x86-64 ELF module of more than 1 GiB of
  /// constants (an error on other targets).
  llvm::Error chooseCodeModel(llvm::Module &llvmModule, Target &target);
  /// Translates, optimizes and emits; records the object's code in
  /// `report` (if any).
  llvm::Error emitCode(ModuleOp module, Target &target, OutputFiles &files,
                       PrecisionReport *report);
  /// LLVM's -O pipeline for the target, counting the functions it
  /// optimizes as progress.
  void optimize(llvm::Module &llvmModule, llvm::TargetMachine *machine);
  /// The phases of this compilation, for the progress line: load, the three
  /// mix stages, then LLVM -O and code generation as --emit needs them.
  unsigned phaseCount() const {
    switch (options.emit) {
    case EmitKind::object:
    case EmitKind::assembly:
      return 6;
    case EmitKind::llvmIR:
      return 5;
    case EmitKind::header:
    case EmitKind::mlir:
      return 4;
    }
    return 6;
  }

  const CompileOptions &options;
  llvm::raw_ostream &out;
  llvm::raw_ostream &err;
  std::string stem; // out/model
  /// --freestanding, or a target without an operating system.
  bool freestanding = false;
  /// Dense GEMMs call mixrt's microkernels: on x86-64 targets (their vector
  /// paths), unless --no-microkernels.
  bool microkernels = true;
  /// f32 erf/tanh/exp inline (mix-approximate-math): when the target has a
  /// fused multiply-add.
  bool approximateMath = true;
  std::string modelName; // model
  std::vector<std::string> outputs;
  std::vector<EntryPoint> entryPoints;
  std::vector<NetworkSignature> signatures;
  /// --report-html: the policy findings of the model (warnings: a model with
  /// errors does not compile), placed on the map.
  std::vector<MapFinding> mapFindings;
  /// --timing: one report for every pass manager run, printed at the end.
  DefaultTimingManager timingManager;
  TimingScope timingRoot;

  std::unique_ptr<MLIRContext> context;
  /// --timing: the pass managers of the phases that ran. MLIR's pass timers
  /// are keyed by the pass object's address, so a pass of a later phase
  /// allocated where a freed one of an earlier phase was would have its
  /// time merged into that pass's line; kept alive, no address is reused.
  /// (Declared after the context and the timing manager: destroyed first.)
  std::vector<std::unique_ptr<PassManager>> timedPhases;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<DiagnosticPrinter> diagnostics;
  OwningOpRef<ModuleOp> module;
  /// --progress; phaseIndex counts the phases begun.
  std::unique_ptr<Progress> progress;
  unsigned phaseIndex = 0;
};

int Compilation::fail(llvm::Error error) {
  if (progress)
    progress->clearLine();
  std::string message = llvm::toString(std::move(error));
  if (!message.empty())
    err << "mixc: error: " << message << "\n";
  if (diagnostics && diagnostics->getNumErrors() > 1)
    err << "mixc: error: " << diagnostics->getNumErrors() << " errors\n";
  return kMixcError;
}

llvm::Error Compilation::planOutputs() {
  if (options.outputStem == "-") {
    // Not a file named "-.o": every kind writes files, and reports go to
    // standard output only through --report=- and the like.
    return makeError("-o '-': mixc writes files (OUT.o and OUT.h, OUT.ll, "
                     "...), not standard output; give an output stem such "
                     "as 'out/model'");
  }
  if (!options.outputStem.empty()) {
    // `-o out/model.o` means the stem `out/model`.
    stem = options.outputStem;
    llvm::StringRef ext = llvm::sys::path::extension(stem);
    if (llvm::is_contained({".o", ".h", ".s", ".ll", ".mlir"}, ext))
      stem.resize(stem.size() - ext.size());
  } else if (options.modelPath == "-") {
    return makeError(
        "-o is required when the model is read from standard input");
  } else {
    stem = llvm::sys::path::stem(options.modelPath).str();
  }
  modelName = llvm::sys::path::filename(stem).str();
  // `-o /dev/null` (a stem that is a device, pipe or socket) would write
  // /dev/null.o and /dev/null.h: the stem is a base name, not a file.
  llvm::sys::fs::file_status stemStatus;
  if (!llvm::sys::fs::status(stem, stemStatus)) {
    llvm::sys::fs::file_type type = stemStatus.type();
    if (type == llvm::sys::fs::file_type::character_file ||
        type == llvm::sys::fs::file_type::block_file ||
        type == llvm::sys::fs::file_type::fifo_file ||
        type == llvm::sys::fs::file_type::socket_file)
      return makeError("-o '" + stem +
                       "' is a device, pipe or socket; -o gives the stem of "
                       "the files mixc writes (STEM.o, STEM.h, ...), such as "
                       "'out/model'");
  }
  if (modelName.empty() || llvm::sys::fs::is_directory(stem))
    return makeError("-o '" + stem +
                     "' names a directory; give an output stem such as "
                     "'out/model'");

  // Two outputs must not be one file.
  if (options.emit != EmitKind::header)
    outputs.push_back(stem + extensionOf(options.emit));
  if (needsHeader(options.emit))
    outputs.push_back(stem + ".h");
  for (const std::string *report :
       {&options.reportJSONPath, &options.reportTextPath,
        &options.reportHTMLPath})
    if (!report->empty() && *report != "-")
      outputs.push_back(*report);
  // Identities (device and inode, or the real path of what does not exist
  // yet), so a symlinked directory or a hard link cannot hide a clash.
  std::map<std::string, std::string> seen;
  for (const std::string &path : outputs) {
    auto [it, inserted] = seen.try_emplace(getFileIdentity(path), path);
    if (!inserted)
      return makeError("the outputs '" + it->second + "' and '" + path +
                       "' are the same file");
  }
  // Nor may an output replace an input.
  const MixPipelineOptions &pipeline = options.pipeline;
  for (llvm::StringRef input :
       {llvm::StringRef(options.modelPath),
        llvm::StringRef(options.weightsPath),
        llvm::StringRef(pipeline.policyPath.getValue()),
        llvm::StringRef(pipeline.calibrationPath.getValue())}) {
    if (input.empty() || input == "-")
      continue;
    auto it = seen.find(getFileIdentity(input));
    if (it != seen.end())
      return makeError("the output '" + it->second +
                       "' would overwrite the input '" + input + "'");
  }
  return llvm::Error::success();
}

llvm::Error Compilation::checkInputFiles() {
  const MixPipelineOptions &pipeline = options.pipeline;
  if (pipeline.verifyPolicy && !pipeline.policyPath.empty())
    if (llvm::Expected<Policy> policy = loadPolicyFile(pipeline.policyPath);
        !policy)
      return policy.takeError();
  if (!pipeline.calibrationPath.empty())
    if (llvm::Expected<io::CalibrationTable> table =
            io::readCalibration(pipeline.calibrationPath);
        !table)
      return table.takeError();
  return llvm::Error::success();
}

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

llvm::Error Compilation::load() {
  DialectRegistry registry;
  registerMixPipelineDependencies(registry);
  context = std::make_unique<MLIRContext>(registry);
  loadMixDialects(*context);
  diagnostics =
      std::make_unique<DiagnosticPrinter>(*context, sourceMgr, err, "mixc");
  if (progress)
    diagnostics->setBeforePrint([this] { progress->clearLine(); });
  ModelLoadOptions loadOptions;
  loadOptions.precisionPlanPath = options.precisionPlanPath;
  llvm::Expected<OwningOpRef<ModuleOp>> loaded =
      loadModel(options.modelPath, *context, &sourceMgr, loadOptions);
  if (!loaded) {
    if (diagnostics->getNumErrors()) {
      llvm::consumeError(loaded.takeError());
      return reported();
    }
    return loaded.takeError();
  }
  module = std::move(*loaded);
  if (llvm::Error error = selectEntries(*module))
    return error;
  // Before the weights are bound: the gradient network names its weight
  // inputs after the external weights.
  if (options.train)
    if (llvm::Error error = addTrainingNetworks(*module))
      return error;

  if (!options.weightsPath.empty()) {
    llvm::Expected<io::SafetensorsFile> file =
        io::SafetensorsFile::open(options.weightsPath);
    if (!file)
      return file.takeError();
    std::vector<std::string> unused;
    if (llvm::Error error = bindWeights(*module, *file, &unused))
      return error;
    if (!unused.empty())
      note(llvm::Twine(unused.size()) + " tensor(s) of " + options.weightsPath +
           " not used by the model: " + llvm::join(unused, ", "));
  } else if (llvm::Error error = requireInlineWeights(*module)) {
    return error;
  }

  // The C signatures, before the pipeline replaces the networks.
  for (NetworkOp network : module->getOps<NetworkOp>())
    entryPoints.push_back(
        {network.getSymName().str(),
         static_cast<unsigned>(network.getNumArguments()),
         static_cast<unsigned>(network.getResultTypes().size())});
  if (needsHeader(options.emit)) {
    llvm::Expected<std::vector<NetworkSignature>> collected =
        collectNetworkSignatures(*module);
    if (!collected)
      return collected.takeError();
    signatures = std::move(*collected);
    if (options.train)
      if (llvm::Error error = checkTrainingSignatures(signatures))
        return error;
  }
  return llvm::Error::success();
}

llvm::Error Compilation::addTrainingNetworks(ModuleOp module) {
  if (freestanding)
    return makeError("--train needs the hosted mixrt (the training step "
                     "reads and writes files); it cannot be combined with "
                     "--freestanding or a target without an OS");
  if (llvm::none_of(module.getOps<NetworkOp>(), endsInLoss))
    return makeError(
        (options.modelPath == "-" ? "<stdin>" : options.modelPath) +
        ": --train: no network" + (options.entries.empty() ? "" : " selected") +
        " ends in a loss (mix.mse_loss or mix.cross_entropy_loss): there is "
        "nothing to train");
  PassManager pm(context.get());
  pm.addPass(createMixDifferentiatePass({/*network=*/"",
                                         /*weightsAsInputs=*/true}));
  if (failed(pm.run(module)))
    return diagnostics->getNumErrors()
               ? reported()
               : makeError(options.modelPath +
                           ": cannot build the gradient networks");
  // Every trained weight and running statistic must have a name: the
  // exported file is bound to the inference build by name.
  std::optional<std::string> error;
  for (NetworkOp network : module.getOps<NetworkOp>()) {
    if (!network.getSymName().ends_with("_initial_weights"))
      continue;
    auto ret = cast<ReturnOp>(network.getBody().front().getTerminator());
    for (Value v : ret.getOperands()) {
      auto w = v.getDefiningOp<WeightOp>();
      if (w && !w.getRefAttr() && !error)
        error = formatLocation(w.getLoc()) +
                ": --train: this weight has inline data and no name; the "
                "trained values are exported by name, so a trained weight "
                "must be external (mix.weight external \"NAME\", with "
                "--weights)";
    }
  }
  return error ? makeError(*error) : llvm::Error::success();
}

llvm::Error Compilation::runPhases(MixPhase start, MixPhase stop) {
  MixPipelineOptions pipeline(options.pipeline);
  pipeline.startAt = start;
  pipeline.stopAfter = stop;
  pipeline.allocatingEntry = !freestanding;
  pipeline.microkernels = microkernels;
  pipeline.approximateMath = approximateMath;
  auto owned = std::make_unique<PassManager>(context.get());
  PassManager &pm = *owned;
  if (failed(buildMixPipeline(pm, pipeline)))
    return makeError("internal error: cannot build the mix pipeline");
  if (options.timing) {
    pm.enableTiming(timingRoot);
    timedPhases.push_back(std::move(owned));
  }
  if (progress)
    pm.addInstrumentation(std::make_unique<PassProgress>(*progress, pm.size()));
  // The verifier runs once per phase, not after every pass: on a 1,000-layer
  // network it took about 40% of the pipeline's time. (mix_model_fuzzer
  // keeps verifying after each pass.)
  pm.enableVerifier(false);
  if (failed(pm.run(*module)))
    return diagnostics->getNumErrors()
               ? reported()
               : makeError(options.modelPath + ": compilation failed");
  if (failed(mlir::verify(*module)))
    return makeError("internal error: the pipeline produced invalid IR (" +
                     options.modelPath + "); this is a bug in mixc");
  return llvm::Error::success();
}

llvm::Error Compilation::runPipeline(std::optional<PrecisionReport> &report) {
  if (!options.reportJSONPath.empty() || !options.reportTextPath.empty() ||
      !options.reportHTMLPath.empty())
    report.emplace();
  if (report && failed(report->recordModel(*module)))
    return diagnostics->getNumErrors()
               ? reported()
               : makeError(options.modelPath +
                           ": cannot record the precision report");
  // The map shows the policy's findings at their layers: the same check
  // as the pipeline's, on the model before it (whose ops the findings
  // name). Errors stop the pipeline below, as without the map.
  if (!options.reportHTMLPath.empty() && options.pipeline.verifyPolicy) {
    Policy policy = Policy::getDefault();
    if (!options.pipeline.policyPath.empty()) {
      llvm::Expected<Policy> loaded =
          loadPolicyFile(options.pipeline.policyPath);
      if (!loaded)
        return loaded.takeError();
      policy = std::move(*loaded);
    }
    FailureOr<std::vector<Finding>> found = checkPolicy(*module, policy);
    if (failed(found))
      return diagnostics->getNumErrors()
                 ? reported()
                 : makeError(options.modelPath +
                             ": cannot record the precision map");
    mapFindings = toMapFindings(*found);
  }
  if (llvm::Error error = phase("resolve, policy, casts", [&] {
        return runPhases(MixPhase::resolve, MixPhase::casts);
      }))
    return error;
  if (report)
    report->recordCasts(*module);
  if (llvm::Error error = phase("quantize", [&] {
        return runPhases(MixPhase::quantize, MixPhase::quantize);
      }))
    return error;
  if (report)
    report->recordQuantized(*module);
  if (llvm::Error error = phase("lower to the LLVM dialect", [&] {
        return runPhases(MixPhase::linalg, MixPhase::llvm);
      }))
    return error;
  if (llvm::Error error = checkEntryPoints(*module))
    return error;
  if (freestanding)
    if (llvm::Error error = checkNoHeap(*module))
      return error;
  for (const EntryPoint &entry : entryPoints) {
    for (NetworkSignature &sig : signatures)
      if (sig.name == entry.name)
        sig.workspaceBytes = entry.plan.workspace;
    if (report)
      report->recordMemoryPlan(entry.name, entry.plan);
  }
  return llvm::Error::success();
}

llvm::Error Compilation::checkEntryPoints(ModuleOp module) {
  // Per network: _mlir_ciface_NAME(inputs..., outputs...), the convenience
  // entry, and _mlir_ciface_mixc_net_NAME(inputs..., outputs..., workspace),
  // the planned function, which carries the memory plan.
  auto check = [&](const std::string &symbol, unsigned numArgs,
                   const std::string &network) -> llvm::Error {
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(symbol);
    if (!func || func.isExternal() || func.getNumArguments() != numArgs ||
        !isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()) ||
        !llvm::all_of(func.getArgumentTypes(),
                      llvm::IsaPred<LLVM::LLVMPointerType>))
      return makeError("internal error: the lowered network @" + network +
                       " does not have the entry point " + symbol + "(" +
                       llvm::Twine(numArgs) + " descriptor pointers)");
    return llvm::Error::success();
  };
  for (EntryPoint &entry : entryPoints) {
    unsigned numArgs = entry.numInputs + entry.numOutputs;
    if (!freestanding)
      if (llvm::Error error =
              check((symbols::kCInterfacePrefix + entry.name).str(), numArgs,
                    entry.name))
        return error;
    if (llvm::Error error = check(
            (symbols::kCInterfacePrefix + symbols::kNetworkPrefix + entry.name)
                .str(),
            numArgs + 1, entry.name))
      return error;
    auto planned = module.lookupSymbol<LLVM::LLVMFuncOp>(
        (symbols::kNetworkPrefix + entry.name).str());
    auto plan =
        planned ? planned->getAttrOfType<DictionaryAttr>(kMemoryPlanAttrName)
                : DictionaryAttr();
    if (!plan)
      return makeError("internal error: the lowered network @" + entry.name +
                       " has no " + kMemoryPlanAttrName);
    auto get = [&](StringRef key) {
      return plan.getAs<IntegerAttr>(key).getInt();
    };
    entry.plan = {get("workspace"), get("intermediates"), get("peak")};
    // Nothing below the LLVM dialect needs it (convert-func-to-llvm copied
    // it onto the C interface too).
    planned->removeAttr(kMemoryPlanAttrName);
    if (Operation *ciface = module.lookupSymbol(
            (symbols::kCInterfacePrefix + symbols::kNetworkPrefix + entry.name)
                .str()))
      ciface->removeAttr(kMemoryPlanAttrName);
  }
  return llvm::Error::success();
}

llvm::Error Compilation::checkNoHeap(ModuleOp module) {
  // What finalize-memref-to-llvm calls for an allocation that
  // mix-plan-memory could not place in the workspace.
  static constexpr llvm::StringLiteral kHeapFunctions[] = {
      "malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign"};
  bool found = false;
  module.walk([&](LLVM::CallOp call) {
    std::optional<StringRef> callee = call.getCallee();
    if (!callee || !llvm::is_contained(kHeapFunctions, *callee))
      return;
    found = true;
    call.emitError() << "internal error: freestanding code calls '" << *callee
                     << "' for a buffer outside the network's workspace; "
                        "this is a bug in mixc";
  });
  return found ? reported() : llvm::Error::success();
}

/// The small code model (the default) addresses code and data within 2 GiB:
/// an object whose constants (the weights) come near that links with
/// "relocation truncated to fit" errors. On x86-64, such a module uses the
/// medium code model instead: globals above 64 KiB go to the large
/// sections (.lrodata), addressed with 64-bit offsets, which the linker
/// places after the rest (ELF only). Other targets refuse it with the
/// size.
llvm::Error Compilation::chooseCodeModel(llvm::Module &llvmModule,
                                         Target &target) {
  // Room for the code and the application's own data beside the weights.
  constexpr uint64_t kSmallModelData = uint64_t(1) << 30;
  const llvm::DataLayout &layout = llvmModule.getDataLayout();
  uint64_t bytes = 0;
  for (const llvm::GlobalVariable &g : llvmModule.globals())
    if (g.hasInitializer())
      bytes += layout.getTypeAllocSize(g.getValueType());
  if (bytes <= kSmallModelData)
    return llvm::Error::success();
  // Only ELF has the large sections (on Mach-O and COFF the medium model
  // still places everything in the usual ones).
  if (target.triple.getArch() == llvm::Triple::x86_64 &&
      target.triple.isOSBinFormatELF() && !target.isBareMetal()) {
    constexpr uint64_t kLargeData = uint64_t(1) << 16;
    target.machine->setCodeModel(llvm::CodeModel::Medium);
    target.machine->setLargeDataThreshold(kLargeData);
    // Recorded in the module too (--emit=llvm output keeps it).
    llvmModule.setCodeModel(llvm::CodeModel::Medium);
    llvmModule.setLargeDataThreshold(kLargeData);
    return llvm::Error::success();
  }
  return makeError(options.modelPath + ": the model's constant data (" +
                   std::to_string(bytes) +
                   " bytes of weights) exceeds the 1 GiB an object for " +
                   target.triple.str() +
                   " can hold in its default code model (x86-64 ELF objects "
                   "use the medium code model); make the largest weights "
                   "network inputs, passed at run time");
}

llvm::Error Compilation::emitCode(ModuleOp module, Target &target,
                                  OutputFiles &files, PrecisionReport *report) {
  // Which layers each layer function computes, before the locations are
  // gone.
  std::map<std::string, std::vector<std::string>> layerCalls;
  if (report)
    layerCalls = collectLayerFunctionCalls(module);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, modelName);
  if (!llvmModule)
    return makeError(options.modelPath +
                     ": cannot translate the lowered module to LLVM IR");
  llvmModule->setSourceFileName(options.modelPath);
  llvmModule->setTargetTriple(target.triple);
  llvmModule->setDataLayout(target.machine->createDataLayout());
  if (llvm::Error error = chooseCodeModel(*llvmModule, target))
    return error;

  // Only the C interface is exported: the functions behind it (one per
  // network, taking expanded descriptors) become internal, so they cannot
  // clash with the application's symbols and may be inlined.
  for (const EntryPoint &entry : entryPoints)
    for (const std::string &name :
         {(symbols::kNetworkPrefix + entry.name).str(),
          (symbols::kConvenienceEntryPrefix + entry.name).str()})
      if (llvm::Function *f = llvmModule->getFunction(name))
        if (!f->isDeclaration())
          f->setLinkage(llvm::GlobalValue::InternalLinkage);

  // Nothing in the compiled code throws, and what it calls (mixrt's core,
  // libm, memcpy) is C: without `nounwind` every function would get unwind
  // tables naming a C++ personality routine (on Arm EABI the object then
  // needs __aeabi_unwind_cpp_pr0/pr1 from a C++ runtime).
  for (llvm::Function &f : *llvmModule)
    f.setDoesNotThrow();

  if (llvm::Error error = phase("LLVM -O" + std::to_string(options.optLevel),
                                [&]() -> llvm::Error {
                                  optimize(*llvmModule, target.machine.get());
                                  return llvm::Error::success();
                                }))
    return error;

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
  // Last in the function pass manager: runs as each function is emitted.
  if (progress)
    codegen.add(new CodegenProgressPass(*progress));
  if (llvm::Error error = phase("code generation", [&] {
        if (progress)
          progress->startCount("function", countDefinedFunctions(*llvmModule));
        codegen.run(*llvmModule);
        return llvm::Error::success();
      }))
    return error;
  if (report && options.emit == EmitKind::object) {
    llvm::Expected<ObjectCode> code = measureObjectCode(buffer.str());
    if (!code)
      return makeError("internal error: cannot read the emitted object: " +
                       llvm::toString(code.takeError()));
    report->recordCode(*code, layerCalls,
                       target.triple.str() + ", cpu " + target.cpu);
  }
  files.add(stem + extensionOf(options.emit), buffer.str().str());
  return llvm::Error::success();
}

void Compilation::optimize(llvm::Module &llvmModule,
                           llvm::TargetMachine *machine) {
  // As MLIR's makeOptimizingTransformer, with an instrumentation that
  // counts the functions the pipeline reaches.
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::DenseSet<const llvm::Function *> seen;
  if (progress) {
    progress->startCount("function", countDefinedFunctions(llvmModule));
    callbacks.registerBeforeNonSkippedPassCallback(
        [&](llvm::StringRef, llvm::Any ir) {
          if (const auto *f = llvm::any_cast<const llvm::Function *>(&ir))
            if (seen.insert(*f).second)
              progress->tick();
        });
  }
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgsccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgsccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgsccs, modules);
  llvm::OptimizationLevel level = llvm::OptimizationLevel::O0;
  switch (options.optLevel) {
  case 0:
    break;
  case 1:
    level = llvm::OptimizationLevel::O1;
    break;
  case 2:
    level = llvm::OptimizationLevel::O2;
    break;
  default:
    level = llvm::OptimizationLevel::O3;
    break;
  }
  llvm::ModulePassManager pipeline =
      options.optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                            : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(llvmModule, modules);
}

llvm::Error Compilation::emit(Target &target,
                              std::optional<PrecisionReport> &report) {
  OutputFiles files;
  switch (options.emit) {
  case EmitKind::mlir: {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    files.add(stem + ".mlir", std::move(text));
    break;
  }
  case EmitKind::header:
    break;
  case EmitKind::object:
  case EmitKind::assembly:
  case EmitKind::llvmIR:
    if (llvm::Error error =
            emitCode(*module, target, files, report ? &*report : nullptr))
      return error;
    break;
  }
  if (needsHeader(options.emit)) {
    HeaderInfo info;
    info.modelName = modelName;
    info.sourceName = options.modelPath == "-"
                          ? "<stdin>"
                          : llvm::sys::path::filename(options.modelPath).str();
    info.version = getMixcVersion();
    info.freestanding = freestanding;
    info.checks = options.pipeline.checkedCasts;
    info.train = options.train;
    files.add(stem + ".h", generateHeader(signatures, info));
  }
  std::string reportJSON, reportText;
  if (report && !options.reportJSONPath.empty()) {
    llvm::raw_string_ostream os(reportJSON);
    os << llvm::formatv("{0:2}", report->toJSON()) << "\n";
    if (options.reportJSONPath != "-")
      files.add(options.reportJSONPath, reportJSON);
  }
  if (report && !options.reportTextPath.empty()) {
    llvm::raw_string_ostream os(reportText);
    report->print(os);
    if (options.reportTextPath != "-")
      files.add(options.reportTextPath, reportText);
  }

  std::string reportHTML;
  if (report && !options.reportHTMLPath.empty()) {
    reportHTML = renderPrecisionMap(
        *report, mapFindings, {"mixc", options.modelPath, /*compiled=*/true});
    if (options.reportHTMLPath != "-")
      files.add(options.reportHTMLPath, reportHTML);
  }

  if (llvm::Error error = files.commit())
    return error;
  for (const std::string &path : files.paths())
    note("wrote " + path);
  if (options.reportJSONPath == "-")
    out << reportJSON;
  if (options.reportTextPath == "-")
    out << reportText;
  if (options.reportHTMLPath == "-")
    out << reportHTML;
  out.flush();
  return llvm::Error::success();
}

int Compilation::run() {
  if (llvm::Error error = planOutputs())
    return usageError(std::move(error));
  progress =
      std::make_unique<Progress>(options.progress, err, err.is_displayed());
  llvm::Expected<Target> target =
      selectTarget(options.targetTriple, options.targetCPU, options.optLevel);
  if (!target)
    return usageError(target.takeError());
  freestanding = options.freestanding || target->isBareMetal();
  // The microkernels have vector paths for x86-64 only; elsewhere the
  // generated loops are kept (the portable C kernel was not measured to be
  // faster there).
  microkernels = options.pipeline.microkernels &&
                 target->triple.getArch() == llvm::Triple::x86_64;
  // The approximations are chains of fma: without the instruction each is
  // an fmaf call, and libm's erff/tanhf/expf are faster (about 7x on
  // x86-64 without FMA).
  approximateMath =
      options.pipeline.approximateMath && target->hasFusedMultiplyAdd();
  note("target " + target->triple.str() + ", cpu " + target->cpu + ", -O" +
       llvm::Twine(options.optLevel) + (freestanding ? ", freestanding" : "") +
       (microkernels ? ", microkernels" : "") +
       (approximateMath ? ", approximate math" : ""));

  if (llvm::Error error = checkInputFiles())
    return fail(std::move(error));
  if (options.timing) {
    timingManager.setEnabled(true);
    timingRoot = timingManager.getRootScope();
  }
  if (llvm::Error error = phase("load", [&] { return load(); }))
    return fail(std::move(error));
  std::optional<PrecisionReport> report;
  if (llvm::Error error = runPipeline(report))
    return fail(std::move(error));
  if (llvm::Error error = emit(*target, report))
    return fail(std::move(error));
  return kMixcSuccess;
}

} // namespace

int mix::runMixc(const CompileOptions &options, llvm::raw_ostream &out,
                 llvm::raw_ostream &err) {
  return Compilation(options, out, err).run();
}

int mix::mixcMain(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out,
                  llvm::raw_ostream &err) {
  llvm::Expected<CompileOptions> options = parseMixcCommandLine(args);
  if (!options) {
    err << "mixc: error: " << llvm::toString(options.takeError()) << "\n"
        << "run 'mixc --help' for usage\n";
    return kMixcUsage;
  }
  if (options->help) {
    printMixcHelp(out);
    return kMixcSuccess;
  }
  if (options->version) {
    printToolVersion(out);
    return kMixcSuccess;
  }
  return runMixc(*options, out, err);
}
