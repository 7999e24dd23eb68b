//===-- mix_model_fuzzer.cpp - libFuzzer target for mix models ------------===//
//
// The input is a model text (`.mlir`). It goes through what the tools do
// with a model before code generation:
//
//  * loadModelFromBuffer: the size and nesting bounds of loadModel, parse,
//    verify, at least one `mix.network`;
//  * mixc's header: collectNetworkSignatures + generateHeader;
//  * mix-lint: precision resolution, the check against the built-in default
//    policy, the findings as diagnostics and every layer's resolution as
//    `--explain` prints it;
//  * mixc's precision report (recordModel, recordCasts, recordQuantized,
//    JSON and text);
//  * the mix pipeline through the `quantize` phase (resolve, policy with the
//    default policy, int8 accumulation proof, casts, canonicalize,
//    quantize). The `llvm` phase is left out: far too slow per input.
//
// Options of the pipeline come from the input size, so that both sides of
// each are reached and a reproducer replays exactly: bit 0 selects --split-k,
// bit 1 per-tensor weight scales, bit 2 unchecked casts.
//
// Errors are expected and fine. Findings are crashes, sanitizer reports,
// leaks and timeouts, plus two invariants that abort:
//
//  * a verified module prints to text that parses and verifies again;
//  * a pass that succeeds leaves IR that verifies (the pass manager's own
//    verifier is off; an instrumentation verifies after every successful
//    pass and names the pass).
//
// One MLIRContext serves every input (threading disabled); a diagnostic
// handler swallows everything, so nothing is printed per input.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "compiler/Header.h"
#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"
#include "compiler/Report.h"
#include "dialect/MixOps.h"
#include "passes/PolicyCheck.h"
#include "passes/PrecisionAnalysis.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;
using mix::fuzz::fuzzContext;
using mix::fuzz::FuzzDialects;
using mix::fuzz::invariantViolated;

namespace {

/// Inputs that reach crashes in upstream MLIR 22, not in mixc (the tools
/// contain them with their crash handlers, support/CrashHandler.h).
/// fuzz/README.md lists each with its reproducer.
bool hitsKnownUpstreamCrash(llvm::StringRef text) {
  // The dense-array attribute parser crashes (SIGSEGV) on the element type
  // `index`: `array<index`, `array<index>`, `array < index: 1>` (whitespace
  // is allowed around `<`), e.g. the 27-byte model
  // `%c=mix.conv2d{s=array<index`
  // (tests/lit/Hardening/Inputs/dense-array-crash.mlir). Upstream mlir-opt
  // dies on `func.func @f() attributes {s = array<index: 1>}` too.
  for (size_t at = text.find("array"); at != llvm::StringRef::npos;
       at = text.find("array", at + 1)) {
    llvm::StringRef rest = text.drop_front(at + 5).ltrim(" \t\r\n");
    if (rest.consume_front("<") && rest.ltrim(" \t\r\n").starts_with("index"))
      return true;
  }
  return false;
}

/// Verifies the IR after every pass that succeeded.
class VerifyAfterEachPass : public PassInstrumentation {
public:
  void runAfterPass(Pass *pass, Operation *op) override {
    if (failed(verify(op)))
      invariantViolated("mix_model_fuzzer",
                        "a pass that succeeded left IR that does not verify",
                        pass->getName());
  }
};

/// Prints `module` and parses the text back: it must verify again.
void checkRoundTrip(ModuleOp module, const char *when) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  mix::FirstErrorCollector errors(*module->getContext());
  OwningOpRef<ModuleOp> reparsed =
      parseSourceString<ModuleOp>(text, ParserConfig(module->getContext()));
  if (!reparsed) {
    std::fprintf(stderr, "%s\n%s\n", text.c_str(), errors.message().c_str());
    invariantViolated("mix_model_fuzzer",
                      "the printed module does not parse back", when);
  }
}

/// mix-lint: resolution, the default policy, --explain.
void lint(ModuleOp module) {
  mix::PrecisionAnalysis precisions(module);
  FailureOr<std::vector<mix::Finding>> findings =
      mix::checkPolicy(module, mix::Policy::getDefault(), &precisions);
  if (failed(findings))
    return;
  for (const mix::Finding &f : *findings)
    mix::emitFinding(f);
  module.walk([&](mix::LayerOpInterface layer) {
    FailureOr<mix::LayerResolution> r = precisions.resolve(layer);
    if (failed(r))
      return WalkResult::interrupt();
    std::string row = mix::formatLocation(layer->getLoc());
    for (mix::PrecisionProperty prop : mix::kAllProperties)
      if (const mix::Decision *d = r->get(prop))
        row += d->precision.str() + " (" + d->describe() + ")";
    row += mix::getLayerPath(layer);
    return WalkResult::advance();
  });
}

/// Runs the phases `start`..`stop` of the mix pipeline.
LogicalResult runPhases(ModuleOp module, const mix::MixPipelineOptions &base,
                        mix::MixPhase start, mix::MixPhase stop) {
  mix::MixPipelineOptions options(base);
  options.startAt = start;
  options.stopAfter = stop;
  PassManager pm(module->getContext());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
  if (failed(mix::buildMixPipeline(pm, options)))
    invariantViolated("mix_model_fuzzer", "cannot build the mix pipeline", "");
  return pm.run(module);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  if (hitsKnownUpstreamCrash(text))
    return -1; // not added to the corpus
  MLIRContext &context = fuzzContext(FuzzDialects::pipeline);

  // A copy: the parser needs a NUL-terminated buffer, and ASan then sees
  // any read past its end.
  llvm::Expected<OwningOpRef<ModuleOp>> loaded = mix::loadModelFromBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), "fuzz.mlir",
      context);
  if (!loaded) {
    llvm::consumeError(loaded.takeError());
    return 0;
  }
  ModuleOp module = **loaded;
  checkRoundTrip(module, "after parsing");

  if (llvm::Expected<std::string> header =
          mix::generateHeader(module, {"fuzz", "fuzz.mlir", "0"});
      !header)
    llvm::consumeError(header.takeError());

  lint(module);

  mix::PrecisionReport report;
  bool reporting = succeeded(report.recordModel(module));

  mix::MixPipelineOptions options;
  options.splitK = (size & 1) != 0;
  options.weightGranularity = (size & 2) ? mix::WeightGranularity::tensor
                                         : mix::WeightGranularity::channel;
  options.checkedCasts = (size & 4) == 0;
  if (failed(runPhases(module, options, mix::MixPhase::resolve,
                       mix::MixPhase::casts)))
    return 0;
  if (reporting)
    report.recordCasts(module);
  if (failed(runPhases(module, options, mix::MixPhase::quantize,
                       mix::MixPhase::quantize)))
    return 0;
  if (reporting) {
    report.recordQuantized(module);
    llvm::raw_null_ostream null;
    null << report.toJSON();
    report.print(null);
  }
  checkRoundTrip(module, "after the quantize phase");
  return 0;
}
