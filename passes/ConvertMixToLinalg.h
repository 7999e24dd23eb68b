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
void populateMixToLinalgConversionPatterns(mlir::RewritePatternSet &patterns);

/// Inlines every mix.block nested in `root` into its parent.
void inlineMixBlocks(mlir::Operation *root);

} // namespace mix

#endif // MIXC_PASSES_CONVERTMIXTOLINALG_H
