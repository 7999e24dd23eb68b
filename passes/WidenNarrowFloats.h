//===- WidenNarrowFloats.h - f16/bf16 arithmetic computed in f32 -*- C++
//-*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The patterns of mix-widen-narrow-floats: scalar arith/math operations on
// f16 or bf16 compute in f32 (f64 for an f16 fma) and round once with
// mixc's conversions (passes/LinalgBuilders.h), so that LLVM never sees
// arithmetic on a 16-bit float type.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_WIDENNARROWFLOATS_H
#define MIXC_PASSES_WIDENNARROWFLOATS_H

#include "mlir/IR/PatternMatch.h"

namespace mix {

/// Adds the patterns that widen f16/bf16 arithmetic to `patterns`.
void populateWidenNarrowFloatsPatterns(mlir::RewritePatternSet &patterns);

} // namespace mix

#endif // MIXC_PASSES_WIDENNARROWFLOATS_H
