//===- MixDialect.h - the mix dialect
//---------------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_DIALECT_MIXDIALECT_H
#define MIXC_DIALECT_MIXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"

#include "dialect/MixDialect.h.inc"

#endif // MIXC_DIALECT_MIXDIALECT_H
