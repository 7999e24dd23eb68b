//===- Diagnostics.cpp - printing MLIR diagnostics in the mixc tools ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Diagnostics.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mix;

SourcePosition mix::getSourcePosition(Location loc) {
  SourcePosition pos;
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>()) {
    pos.file = fileLoc.getFilename().str();
    pos.line = fileLoc.getLine();
    pos.column = fileLoc.getColumn();
  }
  return pos;
}

std::string mix::locationPrefix(Location loc) {
  SourcePosition pos = getSourcePosition(loc);
  if (pos.line == 0)
    return "";
  return pos.file + ":" + std::to_string(pos.line) + ":" +
         std::to_string(pos.column) + ": ";
}

DiagnosticPrinter::DiagnosticPrinter(MLIRContext &context,
                                     llvm::SourceMgr &sourceMgr,
                                     llvm::raw_ostream &os,
                                     llvm::StringRef tool)
    : context(context), sourceMgr(sourceMgr), os(os), tool(tool.str()) {
  // The notes say where; a dump of the generic form of the op does not help
  // the author of a model.
  context.printOpOnDiagnostic(false);
  id = context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    emit(diag);
    return success();
  });
}

DiagnosticPrinter::~DiagnosticPrinter() {
  context.getDiagEngine().eraseHandler(id);
}

void DiagnosticPrinter::printSourceLine(const SourcePosition &pos) {
  if (pos.line == 0)
    return;
  for (unsigned i = 1, e = sourceMgr.getNumBuffers(); i <= e; ++i) {
    if (sourceMgr.getMemoryBuffer(i)->getBufferIdentifier() != pos.file)
      continue;
    llvm::SMLoc smLoc =
        sourceMgr.FindLocForLineAndColumn(i, pos.line, pos.column);
    if (!smLoc.isValid())
      return;
    // SMDiagnostic prints the message (here: nothing), then the line and the
    // caret; the empty first line is dropped.
    std::string text;
    llvm::raw_string_ostream s(text);
    sourceMgr.GetMessage(smLoc, llvm::SourceMgr::DK_Error, "")
        .print(nullptr, s, /*ShowColors=*/false, /*ShowKindLabel=*/false,
               /*ShowLocation=*/false);
    // A model is untrusted bytes: control characters of the echoed line
    // become '?', one for one, so the caret stays under its column and no
    // escape sequence reaches the terminal (tabs are expanded above).
    for (char &c : text)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
        c = '?';
    os << llvm::StringRef(text).drop_front(1);
    return;
  }
}

void DiagnosticPrinter::print(Location loc, DiagnosticSeverity severity,
                              const llvm::Twine &message) {
  if (severity == DiagnosticSeverity::Remark)
    return;
  if (beforePrint)
    beforePrint();
  SourcePosition pos = getSourcePosition(loc);
  std::string where = locationPrefix(loc);
  switch (severity) {
  case DiagnosticSeverity::Error:
    ++numErrors;
    os << tool << ": error: " << where << message << "\n";
    break;
  case DiagnosticSeverity::Warning:
    os << tool << ": warning: " << where << message << "\n";
    break;
  case DiagnosticSeverity::Note:
    os << (where.empty() ? tool + ": " : where) << "note: " << message << "\n";
    break;
  case DiagnosticSeverity::Remark:
    return;
  }
  printSourceLine(pos);
}

void DiagnosticPrinter::emit(Diagnostic &diag) {
  if (diag.getSeverity() == DiagnosticSeverity::Remark)
    return;
  print(diag.getLocation(), diag.getSeverity(), diag.str());
  for (Diagnostic &note : diag.getNotes())
    print(note.getLocation(), DiagnosticSeverity::Note, note.str());
  os.flush();
}
