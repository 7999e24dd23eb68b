//===- SpecializeBatch.h - networks with a dynamic batch ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A network may take a dynamic batch: a leading `?` on its inputs and
// outputs (and on every value derived from them). Each sample of such a
// batch is computed on its own, so the network is compiled (and
// interpreted) for a static number of samples, and the entry point calls it
// once per group of samples. The verifiers keep the batch the leading
// dimension and reject the layers that would combine samples (losses,
// softmax over axis 0, flatten from dimension 0).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_SPECIALIZEBATCH_H
#define MIXC_PASSES_SPECIALIZEBATCH_H

#include "dialect/MixOps.h"

#include <cstdint>

namespace mix {

/// Whether `network` has a dynamic batch: an input whose leading dimension
/// is `?` (the verifier of mix.network then requires one on every output).
bool hasDynamicBatch(NetworkOp network);

/// Replaces the leading `?` of every value of `network` (its signature, its
/// arguments, every result and block argument inside it) by `batch` (>= 1).
/// A network without a dynamic batch is left unchanged.
void specializeBatch(NetworkOp network, int64_t batch);

} // namespace mix

#endif // MIXC_PASSES_SPECIALIZEBATCH_H
