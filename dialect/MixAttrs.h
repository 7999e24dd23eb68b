//===- MixAttrs.h - mix attributes and enums
//---------------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_DIALECT_MIXATTRS_H
#define MIXC_DIALECT_MIXATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialect/MixEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/MixAttrs.h.inc"

namespace mix {

/// All precision properties, in their canonical order.
inline constexpr PrecisionProperty kAllProperties[] = {
    PrecisionProperty::weights, PrecisionProperty::activations,
    PrecisionProperty::accumulator, PrecisionProperty::output};

/// The attribute name under which a layer stores the override of `property`
/// (`weights_precision`, ...).
llvm::StringRef getOverrideAttrName(PrecisionProperty property);

/// Orders float precisions by range and resolution: f64 > f32 > {f16, bf16}.
/// Returns true when `p` is at least as wide as f32 (f32 or f64).
bool isAtLeastF32(PrecisionAttr p);

} // namespace mix

#endif // MIXC_DIALECT_MIXATTRS_H
