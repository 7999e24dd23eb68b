//===- PrecisionPlan.cpp - precisions for an imported model ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/PrecisionPlan.h"
#include "dialect/MixInterfaces.h"
#include "io/Common.h"
#include "support/Error.h"
#include "support/Format.h"
#include "support/InputLimits.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mix;
namespace json = llvm::json;

namespace {

llvm::Error planError(llvm::StringRef path, const llvm::Twine &key,
                      const llvm::Twine &message) {
  return makeError(
      std::errc::invalid_argument,
      escapeControlCharacters((path + ": " + key + ": " + message).str()));
}

/// The layer kinds of the dialect (`dense`, `softmax`, ...).
std::vector<std::string> layerKinds(MLIRContext &context) {
  std::vector<std::string> kinds;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == "mix" &&
        name.hasInterface<LayerOpInterface>())
      kinds.push_back(name.stripDialect().str());
  llvm::sort(kinds);
  return kinds;
}

struct Parser {
  llvm::StringRef path;
  MLIRContext &context;

  llvm::Expected<PrecisionAttr> precision(const json::Value &v,
                                          const std::string &key) {
    std::optional<llvm::StringRef> s = v.getAsString();
    if (!s)
      return planError(path, key,
                       std::string("expected a precision string, got ") +
                           io::detail::jsonKindName(v));
    Attribute attr;
    {
      ScopedDiagnosticHandler quiet(&context,
                                    [](Diagnostic &) { return success(); });
      attr = parseAttribute(("#mix.precision<" + *s + ">").str(), &context);
    }
    auto p = dyn_cast_or_null<PrecisionAttr>(attr);
    if (!p)
      return planError(path, key,
                       "'" + *s +
                           "' is not a precision (f64, f32, f16, bf16, int8, "
                           "int8<asymmetric>, int8<symmetric, axis = N>)");
    if (p.getKind() == PrecisionKind::i32)
      return planError(path, key, "i32 is only a precision of the accumulator");
    return p;
  }

  llvm::Expected<PlanPrecisions> precisions(const json::Value &v,
                                            const std::string &key) {
    PlanPrecisions result;
    result.key = key;
    if (v.getAsString()) {
      auto p = precision(v, key);
      if (!p)
        return p.takeError();
      result.layer = *p;
      return result;
    }
    const json::Object *object = v.getAsObject();
    if (!object)
      return planError(path, key,
                       std::string("expected a precision or an object, got ") +
                           io::detail::jsonKindName(v));
    for (const auto &[name, value] : *object) {
      std::string sub = key + "." + name.str();
      auto p = name == "accumulator" ? precisionAllowingI32(value, sub)
                                     : precision(value, sub);
      if (!p)
        return p.takeError();
      if (name == "precision") {
        result.layer = *p;
        continue;
      }
      std::optional<PrecisionProperty> prop = symbolizePrecisionProperty(name);
      if (!prop)
        return planError(path, sub,
                         "unknown key (expected precision, weights, "
                         "activations, accumulator or output)");
      result.properties[unsigned(*prop)] = *p;
    }
    return result;
  }

  llvm::Expected<PrecisionAttr> precisionAllowingI32(const json::Value &v,
                                                     const std::string &key) {
    if (v.getAsString() == std::optional<llvm::StringRef>("i32"))
      return PrecisionAttr::get(&context, PrecisionKind::i32);
    return precision(v, key);
  }

  llvm::Expected<PrecisionPlan> parse(const json::Value &root) {
    PrecisionPlan plan;
    plan.path = path.str();
    const json::Object *object = root.getAsObject();
    if (!object)
      return planError(path, "<root>",
                       std::string("expected an object, got ") +
                           io::detail::jsonKindName(root));
    std::vector<std::string> kinds = layerKinds(context);
    for (const auto &[k, v] : *object) {
      std::string key = k.str();
      if (key == "default") {
        auto p = precision(v, key);
        if (!p)
          return p.takeError();
        plan.network = *p;
        continue;
      }
      if (key != "blocks" && key != "ops" && key != "nodes")
        return planError(path, key,
                         "unknown key (expected default, blocks, ops or "
                         "nodes)");
      const json::Object *entries = v.getAsObject();
      if (!entries)
        return planError(path, key,
                         std::string("expected an object, got ") +
                             io::detail::jsonKindName(v));
      for (const auto &[name, entry] : *entries) {
        std::string sub = key + "." + name.str();
        if (key == "blocks") {
          if (llvm::Expected<llvm::GlobPattern> glob =
                  llvm::GlobPattern::create(name);
              !glob)
            return planError(path, sub,
                             "invalid pattern: " +
                                 llvm::toString(glob.takeError()));
          llvm::Expected<PrecisionAttr> p = [&]() {
            if (const json::Object *o = entry.getAsObject()) {
              for (const auto &[pk, pv] : *o)
                if (pk != "precision")
                  return llvm::Expected<PrecisionAttr>(
                      planError(path, sub + "." + pk.str(),
                                "unknown key (a block has only a precision)"));
              const json::Value *pv = o->get("precision");
              if (!pv)
                return llvm::Expected<PrecisionAttr>(
                    planError(path, sub, "missing 'precision'"));
              return precision(*pv, sub + ".precision");
            }
            return precision(entry, sub);
          }();
          if (!p)
            return p.takeError();
          plan.blocks.push_back({name.str(), *p});
          continue;
        }
        if (key == "ops" && !llvm::is_contained(kinds, name.str()))
          return planError(path, sub,
                           "unknown layer kind (expected one of " +
                               llvm::join(kinds, ", ") + ")");
        auto p = precisions(entry, sub);
        if (!p)
          return p.takeError();
        (key == "ops" ? plan.ops : plan.nodes).push_back(std::move(*p));
      }
    }
    // Deterministic order (json::Object is unordered).
    llvm::sort(plan.blocks,
               [](const auto &a, const auto &b) { return a.first < b.first; });
    auto byKey = [](const PlanPrecisions &a, const PlanPrecisions &b) {
      return a.key < b.key;
    };
    llvm::sort(plan.ops, byKey);
    llvm::sort(plan.nodes, byKey);
    return plan;
  }
};

/// The ONNX node name of a layer the importer built.
std::optional<llvm::StringRef> nodeName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().getValue();
  return std::nullopt;
}

llvm::Error apply(const PrecisionPlan &plan, const PlanPrecisions &p,
                  LayerOpInterface layer) {
  Operation *op = layer.getOperation();
  if (p.layer)
    op->setAttr("precision", p.layer);
  for (PrecisionProperty prop : kAllProperties) {
    PrecisionAttr attr = p.properties[unsigned(prop)];
    if (!attr)
      continue;
    if (prop == PrecisionProperty::weights && !layer.hasWeights())
      return planError(plan.path, p.key + ".weights",
                       "a " + layer.getLayerKind() + " layer has no weights");
    op->setAttr(getOverrideAttrName(prop), attr);
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<PrecisionPlan> mix::loadPrecisionPlan(llvm::StringRef path,
                                                     MLIRContext &context) {
  context.loadDialect<MixDialect>();
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path, limits::kMaxPolicyBytes, "precision plan");
  if (!buffer)
    return buffer.takeError();
  llvm::StringRef text = (*buffer)->getBuffer();
  if (llvm::Error e = checkNestingDepth(text, limits::kMaxJSONNesting,
                                        NestingSyntax::json, path))
    return std::move(e);
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value)
    return io::detail::jsonParseError(path, "precision plan",
                                      value.takeError());
  if (std::optional<std::string> dup = io::detail::findDuplicateKey(text))
    return planError(path, *dup, "the key appears twice in one object");
  return Parser{path, context}.parse(*value);
}

llvm::Error mix::applyPrecisionPlan(const PrecisionPlan &plan,
                                    NetworkOp network) {
  if (plan.network)
    network.setPrecisionAttr(plan.network);
  // Blocks: the longest matching pattern wins. A block whose parent
  // already has that precision inherits it rather than repeating it (so
  // "encoder.*" sets @encoder.layer.0, not each block nested in it).
  std::vector<bool> blockUsed(plan.blocks.size(), false);
  network.walk<WalkOrder::PreOrder>([&](BlockOp block) {
    StringAttr name = block.getSymNameAttr();
    if (!name)
      return;
    int best = -1;
    for (auto [i, entry] : llvm::enumerate(plan.blocks)) {
      llvm::Expected<llvm::GlobPattern> glob =
          llvm::GlobPattern::create(entry.first);
      if (!glob) {
        llvm::consumeError(glob.takeError());
        continue;
      }
      if (!glob->match(name.getValue()))
        continue;
      blockUsed[i] = true;
      if (best < 0 || entry.first.size() > plan.blocks[best].first.size())
        best = int(i);
    }
    if (best < 0)
      return;
    PrecisionAttr inherited = network.getPrecision();
    for (auto parent = block->getParentOfType<BlockOp>(); parent;
         parent = parent->getParentOfType<BlockOp>())
      if (PrecisionAttr p = parent.getPrecisionAttr()) {
        inherited = p;
        break;
      }
    if (plan.blocks[best].second != inherited)
      block.setPrecisionAttr(plan.blocks[best].second);
  });
  for (auto [i, entry] : llvm::enumerate(plan.blocks))
    if (!blockUsed[i])
      return planError(plan.path, "blocks." + entry.first,
                       "matches no block of the model");
  // Layers: kinds, then nodes.
  llvm::StringSet<> seenNodes;
  llvm::Error error = llvm::Error::success();
  network.walk([&](LayerOpInterface layer) {
    if (error)
      return WalkResult::interrupt();
    for (const PlanPrecisions &p : plan.ops)
      if (p.key == ("ops." + layer.getLayerKind()).str())
        if ((error = apply(plan, p, layer)))
          return WalkResult::interrupt();
    std::optional<llvm::StringRef> name = nodeName(layer);
    if (!name)
      return WalkResult::advance();
    for (const PlanPrecisions &p : plan.nodes)
      if (p.key == ("nodes." + *name).str()) {
        seenNodes.insert(*name);
        if ((error = apply(plan, p, layer)))
          return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (error)
    return error;
  for (const PlanPrecisions &p : plan.nodes)
    if (!seenNodes.contains(llvm::StringRef(p.key).drop_front(6)))
      return planError(plan.path, p.key,
                       "no layer of the model comes from this node");
  return llvm::Error::success();
}
