//===- MixInterfaces.h - mix op interfaces
//---------------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_DIALECT_MIXINTERFACES_H
#define MIXC_DIALECT_MIXINTERFACES_H

#include "dialect/MixAttrs.h"
#include "dialect/MixTraits.h"
#include "mlir/IR/OpDefinition.h"

namespace mix {
/// Verifies the precision attributes of a layer op (shared by all layers
/// through LayerOpInterface).
llvm::LogicalResult verifyLayerPrecisions(mlir::Operation *op);
} // namespace mix

#include "dialect/MixInterfaces.h.inc"

#endif // MIXC_DIALECT_MIXINTERFACES_H
