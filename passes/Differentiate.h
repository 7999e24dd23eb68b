//===- Differentiate.h - the gradient network of a network ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The C++ API of `mix-differentiate` beside its pass (Passes.td): which
// networks it differentiates.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_DIFFERENTIATE_H
#define MIXC_PASSES_DIFFERENTIATE_H

#include "dialect/MixOps.h"

namespace mix {

/// Whether the last result of `network` is computed by a loss op
/// (`mix.mse_loss`, `mix.cross_entropy_loss`), looking through blocks: the
/// networks `mix-differentiate` takes by default.
bool endsInLoss(NetworkOp network);

} // namespace mix

#endif // MIXC_PASSES_DIFFERENTIATE_H
