//===- ConvertMixToLinalg.h - mix to linalg conversion ----------*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The public entry points of the mix -> linalg lowering. The patterns live in
// passes/Conversion/, one file per op family (see MixToLinalgPatterns.h).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_CONVERTMIXTOLINALG_H
#define MIXC_PASSES_CONVERTMIXTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mix {

/// Options shared by every pattern of the lowering.
struct MixToLinalgOptions {
  /// Whether `checked` casts and quantizes (and integer rescales) get their
  /// run-time checks (mixrt_check_fail).
  bool checks = true;
  /// Whether convolutions are lowered as im2col GEMMs marked for
  /// mix-use-microkernels (false: the direct loops).
  bool microkernels = true;
};

/// Patterns lowering mix layer ops, casts, quantized ops and inline weights to
/// linalg/arith/math/tensor (see ConvertMixToLinalgPass in Passes.td): the
/// patterns of every op family.
void populateMixToLinalgConversionPatterns(
    mlir::RewritePatternSet &patterns,
    const MixToLinalgOptions &options = MixToLinalgOptions());

/// Inlines every mix.block nested in `root` into its parent.
void inlineMixBlocks(mlir::Operation *root);

} // namespace mix

#endif // MIXC_PASSES_CONVERTMIXTOLINALG_H
