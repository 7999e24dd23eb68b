//===- MixOps.h - mix operations
//---------------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_DIALECT_MIXOPS_H
#define MIXC_DIALECT_MIXOPS_H

#include "dialect/MixAttrs.h"
#include "dialect/MixDialect.h"
#include "dialect/MixInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "support/Format.h" // formatShape, for diagnostics

#include <limits> // the default bounds of mix.clip

#define GET_OP_CLASSES
#include "dialect/MixOps.h.inc"

#endif // MIXC_DIALECT_MIXOPS_H
