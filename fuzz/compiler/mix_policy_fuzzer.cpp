//===-- mix_policy_fuzzer.cpp - libFuzzer target for precision policies ---===//
//
// The input is a precision policy (JSON, docs/policy.md). parsePolicy reads
// it as loadPolicyFile does after its bounded read (at most
// limits::kMaxPolicyBytes); when it parses, the policy is checked against
// the examples (edge_int8, resnet, transformer: blocks, int8, f16 and f32
// layers) as mix-lint and mix-verify-policy do, and every finding is
// emitted as a diagnostic.
//
// Errors are expected and fine; findings are crashes, sanitizer reports,
// leaks and timeouts, plus one invariant that aborts: the examples resolve
// whatever the policy (resolution does not depend on it).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "compiler/ModelLoader.h"
#include "passes/Policy.h"
#include "passes/PolicyCheck.h"
#include "passes/PrecisionAnalysis.h"
#include "support/InputLimits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "FuzzModels.inc"

using namespace mlir;
using mix::fuzz::fuzzContext;
using mix::fuzz::FuzzDialects;
using mix::fuzz::invariantViolated;

namespace {

const std::vector<OwningOpRef<ModuleOp>> &getModels() {
  static std::vector<OwningOpRef<ModuleOp>> *models = [] {
    auto *v = new std::vector<OwningOpRef<ModuleOp>>();
    for (const char *text : {kEdgeInt8Model, kResnetModel, kTransformerModel}) {
      v->push_back(parseSourceString<ModuleOp>(
          text, ParserConfig(&fuzzContext(FuzzDialects::model))));
      if (!v->back())
        invariantViolated("mix_policy_fuzzer", "an example does not parse");
    }
    return v;
  }();
  return *models;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)getModels();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > mix::limits::kMaxPolicyBytes)
    return -1;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<mix::Policy> policy = mix::parsePolicy(text, "policy.json");
  if (!policy) {
    llvm::consumeError(policy.takeError());
    return 0;
  }
  for (const OwningOpRef<ModuleOp> &model : getModels()) {
    mix::PrecisionAnalysis precisions(*model);
    FailureOr<std::vector<mix::Finding>> findings =
        mix::checkPolicy(*model, *policy, &precisions);
    if (failed(findings))
      invariantViolated("mix_policy_fuzzer", "an example does not resolve");
    for (const mix::Finding &f : *findings)
      mix::emitFinding(f);
  }
  return 0;
}
