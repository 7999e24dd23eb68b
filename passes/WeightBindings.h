//===- WeightBindings.h - weights through the bindings of blocks ----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A weight defined outside a block reaches its layers as a block argument
// bound to it (`mix.block @b (%k = %w)`). The passes that rewrite weights at
// compile time (mix-insert-casts, mix-fold-batch-norm) look through those
// bindings and remove the ones their rewrites leave unused.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_WEIGHTBINDINGS_H
#define MIXC_PASSES_WEIGHTBINDINGS_H

#include "dialect/MixOps.h"

namespace mix {

/// The mix.weight with inline float data that `v` is, directly or through
/// the bindings of enclosing blocks; null for anything else.
WeightOp getBoundWeight(mlir::Value v);

/// Removes each of `values` that nothing uses: a block argument with its
/// binding (and so on outwards), a weight. A value may be listed twice or
/// be bound to another listed value.
void dropUnusedBindings(mlir::ArrayRef<mlir::Value> values);

} // namespace mix

#endif // MIXC_PASSES_WEIGHTBINDINGS_H
