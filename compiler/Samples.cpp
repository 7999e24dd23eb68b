//===- Samples.cpp - network inputs from safetensors files ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Samples.h"
#include "compiler/ModelLoader.h"
#include "compiler/Weights.h"
#include "dialect/MixOps.h"
#include "passes/SpecializeBatch.h"
#include "support/Error.h"

using namespace mlir;
using namespace mix;

llvm::Expected<std::vector<Sample>>
mix::loadSamples(NetworkOp network, const io::SafetensorsFile &file) {
  std::vector<Sample> samples;
  std::optional<int64_t> count;
  for (auto [i, argType] : llvm::enumerate(network.getArgumentTypes())) {
    std::string name = "input" + std::to_string(i);
    auto type = dyn_cast<RankedTensorType>(argType);
    if (!type)
      return makeError("network @" + network.getSymName() + ": input " +
                       llvm::Twine(i) + " is not a tensor");
    const io::TensorInfo *info = file.find(name);
    if (!info)
      return makeError(file.path() + ": no tensor '" + name + "' for input " +
                       llvm::Twine(i) + " of network @" + network.getSymName() +
                       " (" + formatShape(type.getShape()) + ")");
    std::optional<io::DType> dtype = getSafetensorsDType(type.getElementType());
    if (!dtype || info->dtype != *dtype)
      return makeError(file.path() + ": tensor '" + name + "' has dtype " +
                       io::dtypeName(info->dtype) + ", input " +
                       llvm::Twine(i) + " of network @" + network.getSymName() +
                       " needs " +
                       (dtype ? io::dtypeName(*dtype) : llvm::StringRef("?")));
    ArrayRef<int64_t> shape = type.getShape();
    ArrayRef<int64_t> got(info->shape);
    int64_t n;
    if (got == shape)
      n = 1;
    else if (got.size() == shape.size() + 1 && got.drop_front() == shape)
      n = got.front();
    else if (!shape.empty() && got.size() == shape.size() && shape[0] > 0 &&
             got.drop_front() == shape.drop_front() && got[0] % shape[0] == 0)
      n = got[0] / shape[0]; // samples stacked along the batch dimension
    else
      return makeError(file.path() + ": tensor '" + name + "' has shape " +
                       formatShape(got) + ", input " + llvm::Twine(i) +
                       " of network @" + network.getSymName() + " is " +
                       formatShape(shape) +
                       " (S samples: [S, ...] or stacked along dimension 0)");
    if (count && *count != n)
      return makeError(file.path() + ": tensor '" + name + "' holds " +
                       llvm::Twine(n) + " samples, earlier inputs " +
                       llvm::Twine(*count));
    count = n;
    llvm::Expected<std::vector<double>> values = file.readAsDouble(name);
    if (!values)
      return values.takeError();
    samples.resize(n);
    int64_t per = type.getNumElements();
    for (int64_t s = 0; s < n; ++s) {
      RefTensor t;
      t.shape.assign(shape.begin(), shape.end());
      t.data.assign(values->begin() + s * per, values->begin() + (s + 1) * per);
      samples[s].push_back(std::move(t));
    }
  }
  if (count && *count == 0)
    return makeError(file.path() + ": no samples (leading dimension 0)");
  if (!count) // a network without inputs: one empty sample
    samples.emplace_back();
  return samples;
}

llvm::Expected<NetworkOp> mix::findNetwork(ModuleOp module, StringRef entry) {
  std::string names;
  for (NetworkOp n : module.getOps<NetworkOp>()) {
    if (n.getSymName() == entry)
      return n;
    names += (names.empty() ? "@" : ", @") + n.getSymName().str();
  }
  auto networks = module.getOps<NetworkOp>();
  if (entry.empty() && std::next(networks.begin()) == networks.end())
    return *networks.begin();
  if (entry.empty())
    return makeError("the model has several networks (" + names +
                     "): choose one with --entry");
  return makeError("no network @" + entry + " in the model (it has " + names +
                   ")");
}

llvm::Expected<OwningOpRef<ModuleOp>>
mix::loadModelWithWeights(StringRef modelPath, StringRef weightsPath,
                          MLIRContext &context,
                          const ModelLoadOptions &loadOptions) {
  auto module = loadModel(modelPath, context, nullptr, loadOptions);
  if (!module)
    return module;
  // Each sample of a dynamic batch is computed on its own, as the compiled
  // code does: one sample per run, the file's samples stacked along the
  // batch dimension (loadSamples).
  for (NetworkOp network : (*module)->getOps<NetworkOp>())
    specializeBatch(network, 1);
  if (weightsPath.empty())
    return module;
  llvm::Expected<io::SafetensorsFile> file =
      io::SafetensorsFile::open(weightsPath.str());
  if (!file)
    return file.takeError();
  if (llvm::Error err = bindWeights(**module, *file))
    return std::move(err);
  return module;
}
