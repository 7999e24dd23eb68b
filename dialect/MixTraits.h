//===- MixTraits.h - mix layer category traits
//---------------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_DIALECT_MIXTRAITS_H
#define MIXC_DIALECT_MIXTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mix {
namespace OpTrait {

/// Marker traits naming layer categories; see MixInterfaces.td.
#define MIX_MARKER_TRAIT(NAME)                                                 \
  template <typename ConcreteType>                                             \
  class NAME : public mlir::OpTrait::TraitBase<ConcreteType, NAME> {};
MIX_MARKER_TRAIT(HasWeights)
MIX_MARKER_TRAIT(Int8Capable)
MIX_MARKER_TRAIT(Normalization)
MIX_MARKER_TRAIT(Loss)
MIX_MARKER_TRAIT(Reduction)
MIX_MARKER_TRAIT(UsesExp)
MIX_MARKER_TRAIT(UsesLog)
MIX_MARKER_TRAIT(UsesPow)
#undef MIX_MARKER_TRAIT

} // namespace OpTrait
} // namespace mix

#endif // MIXC_DIALECT_MIXTRAITS_H
