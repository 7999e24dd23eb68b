//===- MixDialect.cpp - the mix dialect -----------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixDialect.h"
#include "dialect/MixOps.h"

using namespace mlir;
using namespace mix;

#include "dialect/MixDialect.cpp.inc"

void MixDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialect/MixOps.cpp.inc"
      >();
}
