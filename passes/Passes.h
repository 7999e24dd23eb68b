//===- Passes.h - mixc passes ---------------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_PASSES_H
#define MIXC_PASSES_PASSES_H

#include "dialect/MixDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mix {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mix

#endif // MIXC_PASSES_PASSES_H
