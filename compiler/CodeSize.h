//===- CodeSize.h - the code bytes of a compiled model ----------*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// What the precision report says about code: the bytes of the object's text
// sections and of each function in them (from the symbol table of the
// object mixc emits), and which layers each layer function of
// mix-outline-layers computes (from the calls in the lowered module).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_CODESIZE_H
#define MIXC_COMPILER_CODESIZE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mix {

/// The code of an object file.
struct ObjectCode {
  /// The bytes of every text (executable) section.
  int64_t textBytes = 0;
  /// The bytes of every function symbol defined in a text section, by
  /// name. Names that LLVM derived from a function (`f.specialized.1`,
  /// `f.cold`) count for the function (`f`).
  std::map<std::string, int64_t> functionBytes;
};

/// Reads the text sections and function symbols of `object` (ELF, Mach-O or
/// COFF, as emitted by the code generator).
llvm::Expected<ObjectCode> measureObjectCode(llvm::StringRef object);

/// For every layer function (`mixc_layer_N`) of a module lowered to the
/// LLVM dialect, the source locations ("file:line:col", as
/// formatLocation() prints them) of the layers that call it, in order of
/// the calls, each once.
std::map<std::string, std::vector<std::string>>
collectLayerFunctionCalls(mlir::ModuleOp module);

} // namespace mix

#endif // MIXC_COMPILER_CODESIZE_H
