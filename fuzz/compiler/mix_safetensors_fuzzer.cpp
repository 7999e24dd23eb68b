//===-- mix_safetensors_fuzzer.cpp - libFuzzer target for weight files ----===//
//
// The input is a safetensors file (io::SafetensorsFile::open reads it from a
// memfd path, FuzzSupport.h). When it opens, every tensor it lists is
// read (readAsDouble), looked up with its own dtype and shape and with
// mismatching ones, and the file is bound to a fixed model whose external
// weights have every element type mixc maps to a dtype (bindWeights, as
// mixc --weights does; the tensor names of fuzz/corpus/mix_safetensors/).
//
// Errors are expected and fine; findings are crashes, sanitizer reports,
// leaks and timeouts, plus one invariant that aborts: a tensor found by name
// is accepted by get() with its own dtype and shape.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "compiler/ModelLoader.h"
#include "compiler/Weights.h"
#include "io/Safetensors.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace mlir;
using mix::fuzz::fuzzContext;
using mix::fuzz::FuzzDialects;
using mix::fuzz::invariantViolated;

namespace {

/// External weights of every element type with a safetensors dtype; the
/// names of tests/lit/Driver/Inputs/make-safetensors.py and short ones.
constexpr const char *kModel = R"mlir(
mix.network @weights precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = mix.weight external "fc.weight" : tensor<4x3xf32>
  %b = mix.weight external "fc.bias" : tensor<3xf32>
  %d = mix.dense %x, %w, %b : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %f64 = mix.weight external "a" : tensor<2xf64>
  %f16 = mix.weight external "b" : tensor<2x2xf16>
  %bf16 = mix.weight external "c" : tensor<3xbf16>
  %i64 = mix.weight external "d" : tensor<1xi64>
  %i32 = mix.weight external "e" : tensor<2xi32>
  %i16 = mix.weight external "f" : tensor<2xi16>
  %i8 = mix.weight external "g" : tensor<4xi8>
  %u8 = mix.weight external "h" : tensor<4xui8>
  %s8 = mix.weight external "i" : tensor<0xsi8>
  mix.return %d : tensor<2x3xf32>
}
)mlir";

ModuleOp getModel() {
  static OwningOpRef<ModuleOp> *model = [] {
    auto *m = new OwningOpRef<ModuleOp>(parseSourceString<ModuleOp>(
        kModel, ParserConfig(&fuzzContext(FuzzDialects::model))));
    if (!*m)
      invariantViolated("mix_safetensors_fuzzer",
                        "the fixed model does not parse", "kModel");
    return m;
  }();
  return **model;
}

void exercise(const mix::io::SafetensorsFile &file) {
  for (const auto &kv : file.metadata())
    (void)kv;
  std::vector<std::string> names = file.names();
  for (const std::string &name : names) {
    const mix::io::TensorInfo *info = file.find(name);
    if (!info)
      invariantViolated("mix_safetensors_fuzzer",
                        "a listed tensor is not found", name);
    if (llvm::Expected<std::vector<double>> values = file.readAsDouble(name))
      (void)values->size();
    else
      llvm::consumeError(values.takeError());
    llvm::Expected<const mix::io::TensorInfo *> same =
        file.get(name, info->dtype, info->shape);
    if (!same)
      invariantViolated("mix_safetensors_fuzzer",
                        "get() rejects a tensor's own dtype and shape",
                        llvm::toString(same.takeError()));
    std::vector<int64_t> other = info->shape;
    other.push_back(1);
    if (llvm::Expected<const mix::io::TensorInfo *> wrong =
            file.get(name, info->dtype, other))
      invariantViolated("mix_safetensors_fuzzer",
                        "get() accepts a different shape", name);
    else
      llvm::consumeError(wrong.takeError());
  }
  // The "no tensor" message lists the file's names.
  if (llvm::Expected<const mix::io::TensorInfo *> missing =
          file.get("\x01 not a tensor name", mix::io::DType::F32, {}))
    (void)*missing;
  else
    llvm::consumeError(missing.takeError());
  if (llvm::Expected<std::vector<double>> missing =
          file.readAsDouble("\x01 not a tensor name"))
    (void)missing->size();
  else
    llvm::consumeError(missing.takeError());

  // mixc --weights: bind the file to a copy of the fixed model.
  OwningOpRef<ModuleOp> model = getModel().clone();
  std::vector<std::string> unused;
  if (llvm::Error e = mix::bindWeights(*model, file, &unused))
    llvm::consumeError(std::move(e));
  else if (llvm::Error e = mix::requireInlineWeights(*model))
    llvm::consumeError(std::move(e));
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)getModel();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = mix::fuzz::writeInputFile(data, size);
  llvm::Expected<mix::io::SafetensorsFile> file =
      mix::io::SafetensorsFile::open(path);
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  exercise(*file);
  return 0;
}
