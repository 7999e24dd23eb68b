//===- ConvertMixToLinalg.h - mix to linalg conversion --------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_CONVERTMIXTOLINALG_H
#define MIXC_PASSES_CONVERTMIXTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mix {

/// Patterns lowering mix layer ops, casts and inline weights to
/// linalg/arith/math/tensor (see ConvertMixToLinalgPass in Passes.td).
/// With `checks` false, `checked` casts and quantizes get no run-time check.
void populateMixToLinalgConversionPatterns(mlir::RewritePatternSet &patterns,
                                           bool checks = true);

/// Patterns lowering mix.quantize and the integer GEMM ops (qdense, qmatmul,
/// qconv2d) with mixrt's arithmetic; part of the patterns above.
void populateQuantizedToLinalgConversionPatterns(
    mlir::RewritePatternSet &patterns, bool checks = true);

/// Inlines every mix.block nested in `root` into its parent.
void inlineMixBlocks(mlir::Operation *root);

} // namespace mix

#endif // MIXC_PASSES_CONVERTMIXTOLINALG_H
