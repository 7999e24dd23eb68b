//===- VerifyPolicyPass.cpp - mix-verify-policy ---------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/PolicyCheck.h"
#include "passes/PrecisionAnalysis.h"

namespace mix {
#define GEN_PASS_DEF_MIXVERIFYPOLICYPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {
struct MixVerifyPolicyPass
    : public mix::impl::MixVerifyPolicyPassBase<MixVerifyPolicyPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (policyPath.empty()) {
      policy = Policy::getDefault();
      return success();
    }
    llvm::Expected<Policy> loaded = loadPolicyFile(policyPath);
    if (!loaded) {
      loadError = llvm::toString(loaded.takeError());
      return success(); // reported from runOnOperation with a location
    }
    policy = std::move(*loaded);
    return success();
  }

  void runOnOperation() override {
    if (!loadError.empty()) {
      getOperation()->emitError() << "bad policy: " << loadError;
      return signalPassFailure();
    }
    FailureOr<std::vector<Finding>> findings =
        checkPolicy(getOperation(), policy, &getAnalysis<PrecisionAnalysis>());
    if (failed(findings))
      return signalPassFailure();
    markAllAnalysesPreserved(); // diagnostics only
    bool anyError = false;
    for (const Finding &finding : *findings) {
      emitFinding(finding);
      if (finding.severity == Severity::error) {
        anyError = true;
        ++numErrors;
      } else {
        ++numWarnings;
      }
    }
    if (anyError)
      signalPassFailure();
  }

  Policy policy = Policy::getDefault();
  std::string loadError;
};
} // namespace
