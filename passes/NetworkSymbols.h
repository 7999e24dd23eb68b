//===- NetworkSymbols.h - the symbols a network lowers to -----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The names the LLVM phase gives a network `@NAME` (network names cannot
// start with `mixc_`, so none of these can meet another network's symbol):
//
//   mixc_net_NAME            the planned function (inputs, outputs,
//                            workspace); C interface
//                            _mlir_ciface_mixc_net_NAME
//   mixc_alloc_NAME          the convenience entry that allocates the
//                            workspace; C interface renamed _mlir_ciface_NAME
//   mixc_layer_N             one function per distinct layer
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_NETWORKSYMBOLS_H
#define MIXC_PASSES_NETWORKSYMBOLS_H

#include "llvm/ADT/StringRef.h"

namespace mix::symbols {

inline constexpr llvm::StringLiteral kNetworkPrefix = "mixc_net_";
inline constexpr llvm::StringLiteral kConvenienceEntryPrefix = "mixc_alloc_";
inline constexpr llvm::StringLiteral kLayerPrefix = "mixc_layer_";
inline constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

} // namespace mix::symbols

#endif // MIXC_PASSES_NETWORKSYMBOLS_H
