//===- ConvertMixToLinalg.cpp - mix to linalg conversion ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The convert-mix-to-linalg pass and the set of its patterns. The patterns
// themselves live in passes/Conversion/, one file per op family.
//
//===----------------------------------------------------------------------===//

#include "passes/ConvertMixToLinalg.h"
#include "passes/Conversion/MixToLinalgPatterns.h"
#include "passes/Int8Bounds.h"
#include "passes/Passes.h"
#include "passes/PrecisionAnalysis.h"
#include "passes/SpecializeBatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mix {
#define GEN_PASS_DEF_CONVERTMIXTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {

struct ConvertMixToLinalgPass
    : public mix::impl::ConvertMixToLinalgPassBase<ConvertMixToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The lowering is static: a dynamic batch is specialized first (the
    // mix pipeline runs mix-specialize-batch at its start).
    for (NetworkOp network : module.getOps<NetworkOp>())
      if (hasDynamicBatch(network)) {
        network.emitOpError()
            << "has a dynamic batch; run mix-specialize-batch before "
               "convert-mix-to-linalg";
        return signalPassFailure();
      }
    // Record resolutions before the structure that decides them disappears.
    if (failed(getAnalysis<PrecisionAnalysis>().record()))
      return signalPassFailure();
    // Never emit integer code whose i32 sums could wrap.
    if (failed(checkIntegerAccumulation(module)))
      return signalPassFailure();
    inlineMixBlocks(module);

    ConversionTarget target(getContext());
    target.addLegalDialect<arith::ArithDialect, func::FuncDialect,
                           linalg::LinalgDialect, LLVM::LLVMDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addIllegalDialect<MixDialect>();
    target.addLegalOp<NetworkOp, ReturnOp>();
    RewritePatternSet patterns(&getContext());
    MixToLinalgOptions options;
    options.checks = checks;
    options.microkernels = microkernels;
    populateMixToLinalgConversionPatterns(patterns, options);
    // A pattern that refuses an op says why (an external weight not loaded,
    // an integer layer mix-quantize did not lower); the conversion's own
    // "failed to legalize" after it would only repeat that it failed, so it
    // is dropped then. Without an explanation it is kept: never silent.
    bool explained = false;
    ScopedDiagnosticHandler dropRepeat(
        &getContext(), [&](Diagnostic &diag) -> LogicalResult {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return failure();
          if (explained &&
              StringRef(diag.str()).starts_with("failed to legalize operation"))
            return success();
          explained = true;
          return failure();
        });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    lowering::convertNetworks(module);
  }
};

} // namespace

void mix::populateMixToLinalgConversionPatterns(
    RewritePatternSet &patterns, const MixToLinalgOptions &options) {
  lowering::populateElementwisePatterns(patterns, options);
  lowering::populateMathPatterns(patterns, options);
  lowering::populateDataMovementPatterns(patterns, options);
  lowering::populateReductionPatterns(patterns, options);
  lowering::populateUpsamplingPatterns(patterns, options);
  lowering::populateMaskPatterns(patterns, options);
  lowering::populateContractionPatterns(patterns, options);
  lowering::populateConvolutionPatterns(patterns, options);
  lowering::populateNormalizationPatterns(patterns, options);
  lowering::populateSoftmaxAndLossPatterns(patterns, options);
  lowering::populateAttentionPatterns(patterns, options);
  lowering::populateRecurrentPatterns(patterns, options);
  lowering::populateQuantizedPatterns(patterns, options);
  lowering::populateStructurePatterns(patterns, options);
}
