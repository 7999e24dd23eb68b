//===- CodeSize.cpp - the code bytes of a compiled model ------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeSize.h"
#include "compiler/ModelLoader.h"
#include "passes/NetworkSymbols.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Object/SymbolSize.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mix;

llvm::Expected<ObjectCode> mix::measureObjectCode(llvm::StringRef object) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(
          llvm::MemoryBufferRef(object, "object"));
  if (!file)
    return file.takeError();
  ObjectCode code;
  for (const llvm::object::SectionRef &section : (*file)->sections())
    if (section.isText())
      code.textBytes += static_cast<int64_t>(section.getSize());
  for (const auto &[symbol, size] : llvm::object::computeSymbolSizes(**file)) {
    llvm::Expected<llvm::object::SymbolRef::Type> type = symbol.getType();
    if (!type) {
      llvm::consumeError(type.takeError());
      continue;
    }
    llvm::Expected<llvm::object::section_iterator> section =
        symbol.getSection();
    if (!section) {
      llvm::consumeError(section.takeError());
      continue;
    }
    if (*type != llvm::object::SymbolRef::ST_Function ||
        *section == (*file)->section_end() || !(*section)->isText())
      continue;
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name)
      return name.takeError();
    // Mach-O prefixes C names with '_'; clones LLVM makes of a function
    // (specialization, hot/cold splitting) are named "f.<suffix>".
    llvm::StringRef base = name->split('.').first;
    if ((*file)->isMachO())
      base.consume_front("_");
    code.functionBytes[base.str()] += static_cast<int64_t>(size);
  }
  return code;
}

std::map<std::string, std::vector<std::string>>
mix::collectLayerFunctionCalls(ModuleOp module) {
  std::map<std::string, std::vector<std::string>> calls;
  module.walk([&](LLVM::CallOp call) {
    std::optional<StringRef> callee = call.getCallee();
    if (!callee || !callee->starts_with(symbols::kLayerPrefix))
      return;
    std::vector<std::string> &locations = calls[callee->str()];
    std::string location = formatLocation(call.getLoc());
    if (!llvm::is_contained(locations, location))
      locations.push_back(std::move(location));
  });
  return calls;
}
