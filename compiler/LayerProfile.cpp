//===- LayerProfile.cpp - per-layer times of profiled code ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/LayerProfile.h"

#include "dialect/MixOps.h"
#include "passes/LinalgBuilders.h"

#include <chrono>
#include <unordered_map>

namespace {

struct Entry {
  const char *where;
  uint64_t calls = 0;
  std::chrono::steady_clock::duration total{};
};

struct Profile {
  // Keyed by the string's address: one global per distinct layer position
  // in the generated code.
  std::unordered_map<const char *, size_t> index;
  std::vector<Entry> entries;
  std::chrono::steady_clock::time_point start;
  const char *open = nullptr;
};

Profile &profile() {
  static Profile p;
  return p;
}

} // namespace

extern "C" void mixc_profile_begin(const char *where) {
  Profile &p = profile();
  p.open = where;
  p.start = std::chrono::steady_clock::now();
}

extern "C" void mixc_profile_end(const char *where) {
  auto now = std::chrono::steady_clock::now();
  Profile &p = profile();
  if (p.open != where)
    return; // an end without its begin: not a whole layer
  p.open = nullptr;
  auto [it, inserted] = p.index.try_emplace(where, p.entries.size());
  if (inserted)
    p.entries.push_back(Entry{where});
  Entry &e = p.entries[it->second];
  ++e.calls;
  e.total += now - p.start;
}

void mix::resetLayerProfile() {
  Profile &p = profile();
  p.index.clear();
  p.entries.clear();
  p.open = nullptr;
}

std::vector<mix::LayerTime> mix::layerProfile() {
  std::vector<LayerTime> result;
  for (const Entry &e : profile().entries)
    result.push_back(
        {e.where, e.calls, std::chrono::duration<double>(e.total).count()});
  return result;
}

namespace {

/// 2 x the multiply-adds of one run of `op`, if it is a GEMM-shaped layer
/// with static shapes.
std::optional<double> arithmeticOf(mlir::Operation *op) {
  using namespace mlir;
  auto staticType = [](Value v) -> ShapedType {
    auto t = dyn_cast<ShapedType>(v.getType());
    return t && t.hasStaticShape() ? t : ShapedType();
  };
  if (op->getNumResults() == 0)
    return std::nullopt;
  ShapedType result = staticType(op->getResult(0));
  if (!result)
    return std::nullopt;
  double outputs = static_cast<double>(result.getNumElements());
  ShapedType k;
  if (auto dense = dyn_cast<mix::DenseOp>(op))
    k = staticType(dense.getInput());
  else if (auto matmul = dyn_cast<mix::MatmulOp>(op))
    k = staticType(matmul.getLhs());
  if (k && k.getRank() > 0)
    return 2.0 * outputs * static_cast<double>(k.getShape().back());
  if (auto conv = dyn_cast<mix::Conv2DOp>(op))
    if (ShapedType w = staticType(conv.getWeight()))
      return 2.0 * outputs *
             static_cast<double>(w.getNumElements() / w.getDimSize(0));
  return std::nullopt;
}

} // namespace

std::map<std::string, mix::LayerInfo>
mix::describeLayers(mlir::ModuleOp module) {
  std::map<std::string, LayerInfo> layers;
  module.walk([&](mlir::Operation *op) {
    if (op->getDialect() == nullptr ||
        op->getDialect()->getNamespace() != "mix" ||
        !llvm::isa<mix::LayerOpInterface>(op))
      return;
    std::string where = lowering::layerLabel(op->getLoc());
    if (where.empty())
      return;
    layers.try_emplace(
        where, LayerInfo{op->getName().stripDialect().str(), arithmeticOf(op)});
  });
  return layers;
}
