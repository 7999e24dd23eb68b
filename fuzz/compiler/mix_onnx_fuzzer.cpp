//===-- mix_onnx_fuzzer.cpp - libFuzzer target for ONNX models ------------===//
//
// The input is an ONNX model file (written to a memfd path, FuzzSupport.h)
// imported as `mixc model.onnx` does it (importOnnxFile: protobuf parse,
// ONNX's checker, version converter and shape inference, then the
// translation into the mix dialect); a model that imports is verified,
// printed and parsed back (what `mix-import-onnx -o` writes must be a model
// mixc reads).
//
// Errors are expected and fine; findings are crashes, sanitizer reports,
// leaks and timeouts, plus two invariants that abort: an imported module
// verifies, and its printed form parses.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "compiler/onnx/OnnxImport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

using namespace mlir;
using mix::fuzz::fuzzContext;
using mix::fuzz::FuzzDialects;
using mix::fuzz::invariantViolated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = fuzzContext(FuzzDialects::model);
  // Diagnostics of a rejected model are expected: keep them quiet.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  const std::string &path = mix::fuzz::writeInputFile(data, size);
  mix::OnnxImportOptions options;
  options.inlineAll = true;
  llvm::Expected<mix::ImportedOnnxModel> imported =
      mix::importOnnxFile(path, context, options);
  if (!imported) {
    llvm::consumeError(imported.takeError());
    return 0;
  }
  ModuleOp module = *imported->module;
  if (failed(verify(module)))
    invariantViolated("mix_onnx_fuzzer", "an imported module does not verify");
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  if (!parseSourceString<ModuleOp>(text, ParserConfig(&context)))
    invariantViolated("mix_onnx_fuzzer",
                      "the printed form of an imported module does not parse",
                      text);
  return 0;
}
