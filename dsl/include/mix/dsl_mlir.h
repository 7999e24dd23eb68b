//===- mix/dsl_mlir.h - a mix/dsl.h model as an mlir::ModuleOp --*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Parses and verifies the text of a mix::dsl::model with the mix dialect
// registered, giving an in-memory mlir::ModuleOp. Header-only, but it needs
// MLIR and the dialect library (MixDialect) of this repository, which the
// installed package does not contain: it is for programs built in this
// tree (tests, tools). An installed application hands the text to mixc.
//
//===----------------------------------------------------------------------===//

#ifndef MIX_DSL_MLIR_H
#define MIX_DSL_MLIR_H

#include "mix/dsl.h"

#include "dialect/MixDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace mix {
namespace dsl {

/// The module of `m`, parsed and verified in `context` (the mix dialect is
/// loaded into it). On failure: null, and `error` holds every message: the
/// DSL's own errors, or the parser's and verifiers' diagnostics located in
/// the text (`dsl:LINE:COL: error: ...`, with the line and its notes).
inline mlir::OwningOpRef<mlir::ModuleOp>
parse(const model &m, mlir::MLIRContext &context, std::string &error) {
  error.clear();
  if (!m.ok()) {
    for (const std::string &e : m.errors())
      error += "mix::dsl: " + e + "\n";
    return nullptr;
  }
  context.getOrLoadDialect<mix::MixDialect>();
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(m.text(), "dsl"), llvm::SMLoc());
  llvm::raw_string_ostream os(error);
  mlir::SourceMgrDiagnosticHandler handler(*sourceMgr, &context, os);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr,
                                            mlir::ParserConfig(&context));
  os.flush();
  if (!module && error.empty())
    error = "mix::dsl: the model does not parse\n";
  return module;
}

} // namespace dsl
} // namespace mix

#endif // MIX_DSL_MLIR_H
