//===- Report.cpp - the precision report of a compilation -----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Report.h"
#include "compiler/ModelLoader.h"
#include "passes/Int8Bounds.h"
#include "passes/Resolve.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mix;

namespace {
/// The report's name of a stored element type.
std::string elementName(Type type) {
  if (type.isInteger(8))
    return "int8";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

int64_t bytesOf(ShapedType type) {
  return type.getNumElements() *
         static_cast<int64_t>((type.getElementTypeBitWidth() + 7) / 8);
}

/// "network @n" or "block @n/outer/inner": unique even when blocks of
/// different networks share a name (unnamed blocks: "block#<index>").
std::string scopeLabel(Operation *scope) {
  if (auto network = dyn_cast<NetworkOp>(scope))
    return "network @" + network.getSymName().str();
  SmallVector<std::string> parts;
  for (Operation *p = scope; p; p = p->getParentOp()) {
    if (auto block = dyn_cast<BlockOp>(p)) {
      if (block.getSymName()) {
        parts.push_back(block.getSymName()->str());
      } else {
        unsigned index = 0;
        for (Operation &other : *block->getBlock()) {
          if (&other == p)
            break;
          index += isa<BlockOp>(other);
        }
        parts.push_back("block#" + std::to_string(index));
      }
    } else if (auto network = dyn_cast<NetworkOp>(p)) {
      parts.push_back(network.getSymName().str());
      break;
    }
  }
  std::string label = "block @";
  for (auto it = parts.rbegin(); it != parts.rend(); ++it)
    label += (it == parts.rbegin() ? "" : "/") + *it;
  return label;
}

/// The label of the scope that directly contains `op`.
std::string scopeName(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<NetworkOp, BlockOp>(p))
      return scopeLabel(p);
  return "module";
}
} // namespace

LogicalResult PrecisionReport::recordModel(ModuleOp module) {
  layers_.clear();
  f32Bytes_ = 0;
  bool ok = true;
  module.walk([&](Operation *op) {
    if (auto w = dyn_cast<WeightOp>(op)) {
      auto type = cast<ShapedType>(w.getType());
      // An all-f32 build stores every float weight in f32.
      f32Bytes_ += isa<FloatType>(type.getElementType())
                       ? type.getNumElements() * 4
                       : bytesOf(type);
      return;
    }
    auto layerOp = dyn_cast<LayerOpInterface>(op);
    if (!layerOp)
      return;
    FailureOr<LayerResolution> r = resolveLayer(layerOp);
    if (failed(r)) {
      ok = false;
      return;
    }
    Layer layer;
    layer.path = getLayerPath(op);
    StringRef kind = op->getName().getStringRef();
    kind.consume_front("mix.");
    layer.kind = kind.str();
    layer.location = formatLocation(op->getLoc());
    auto add = [&](StringRef name, const Decision &d) {
      layer.properties.push_back({name.str(), d.precision.str(),
                                  stringifyPrecisionSource(d.source).str(),
                                  d.describe()});
    };
    if (r->weights)
      add("weights", *r->weights);
    add("activations", r->activations);
    add("accumulator", r->accumulator);
    add("output", r->output);
    if (std::optional<Int8AccumulationBound> bound =
            getInt8AccumulationBound(layerOp, *r)) {
      layer.k = bound->k;
      layer.worstCase = bound->worstCase;
      layer.margin = bound->margin();
    }
    layers_.push_back(std::move(layer));
  });
  return success(ok);
}

void PrecisionReport::recordCasts(ModuleOp module) {
  scopes_.clear();
  llvm::StringMap<size_t> index;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<NetworkOp, BlockOp>(op)) {
      std::string name = scopeLabel(op);
      if (!index.count(name)) {
        index[name] = scopes_.size();
        scopes_.push_back({name, 0});
      }
      return;
    }
    if (isa<CastOp>(op)) {
      auto it = index.find(scopeName(op));
      if (it != index.end())
        ++scopes_[it->second].casts;
    }
  });
  // The chunk mix-check-int8-accumulation chose for layers it split.
  llvm::StringMap<int64_t> chunks;
  module.walk([&](Operation *op) {
    if (auto chunk = op->getAttrOfType<IntegerAttr>(kKChunkAttrName))
      chunks[formatLocation(op->getLoc())] = chunk.getInt();
  });
  for (Layer &layer : layers_)
    if (auto it = chunks.find(layer.location); it != chunks.end())
      layer.kChunk = it->second;
}

void PrecisionReport::recordQuantized(ModuleOp module) {
  weightBytes_.clear();
  module.walk([&](WeightOp w) {
    auto type = cast<ShapedType>(w.getType());
    weightBytes_[elementName(type.getElementType())] += bytesOf(type);
  });
}

int64_t PrecisionReport::totalWeightBytes() const {
  int64_t total = 0;
  for (const auto &[name, bytes] : weightBytes_)
    total += bytes;
  return total;
}

double PrecisionReport::weightRatio() const {
  return f32Bytes_ == 0 ? 1.0
                        : static_cast<double>(totalWeightBytes()) /
                              static_cast<double>(f32Bytes_);
}

llvm::json::Value PrecisionReport::toJSON() const {
  llvm::json::Array layers;
  for (const Layer &layer : layers_) {
    llvm::json::Object props;
    for (const Property &p : layer.properties)
      props[p.name] = llvm::json::Object{{"precision", p.precision},
                                         {"source", p.source},
                                         {"decided_by", p.origin}};
    llvm::json::Object entry{{"layer", layer.path},
                             {"kind", layer.kind},
                             {"location", layer.location},
                             {"precisions", std::move(props)}};
    if (layer.k) {
      llvm::json::Object proof{{"k", *layer.k},
                               {"worst_case", *layer.worstCase},
                               {"limit", int64_t(INT32_MAX)},
                               {"margin", *layer.margin}};
      if (layer.kChunk)
        proof["k_chunk"] = *layer.kChunk;
      entry["int32_proof"] = std::move(proof);
    }
    layers.push_back(std::move(entry));
  }
  llvm::json::Array scopes;
  for (const Scope &s : scopes_)
    scopes.push_back(llvm::json::Object{{"scope", s.name}, {"casts", s.casts}});
  llvm::json::Object bytes;
  for (const auto &[name, n] : weightBytes_)
    bytes[name] = n;
  llvm::json::Object result{
      {"format", "mixc-report"},
      {"version", 1},
      {"layers", std::move(layers)},
      {"casts", std::move(scopes)},
      {"weights", llvm::json::Object{{"bytes_by_type", std::move(bytes)},
                                     {"total_bytes", totalWeightBytes()},
                                     {"all_f32_bytes", f32Bytes_},
                                     {"ratio_to_f32", weightRatio()}}}};
  if (!memoryPlans_.empty()) {
    llvm::json::Array memory;
    for (const auto &[network, plan] : memoryPlans_)
      memory.push_back(
          llvm::json::Object{{"network", network},
                             {"workspace_bytes", plan.workspace},
                             {"intermediate_bytes", plan.intermediates},
                             {"peak_live_bytes", plan.peak}});
    result["memory"] = std::move(memory);
  }
  return result;
}

void PrecisionReport::print(llvm::raw_ostream &os) const {
  os << "Layers (precision, decided by):\n";
  size_t width = 5;
  for (const Layer &layer : layers_)
    width = std::max(width, layer.path.size());
  for (const Layer &layer : layers_) {
    os << "  " << llvm::left_justify(layer.path, width) << "  "
       << layer.location << "\n";
    for (const Property &p : layer.properties)
      os << "    " << llvm::left_justify(p.name, 12) << "  "
         << llvm::left_justify(p.precision, 18) << "  " << p.origin << "\n";
  }
  os << "Casts inserted:\n";
  for (const Scope &s : scopes_)
    os << "  " << llvm::left_justify(s.name, width) << "  " << s.casts << "\n";
  bool any = false;
  for (const Layer &layer : layers_) {
    if (!layer.k)
      continue;
    if (!any)
      os << "int8 accumulation (K x max|a-za| x max|b-zb| <= 2147483647):\n";
    any = true;
    os << "  " << llvm::left_justify(layer.path, width) << "  K = " << *layer.k
       << ", worst case " << *layer.worstCase << ", margin " << *layer.margin;
    if (layer.kChunk)
      os << " (split into pieces of " << *layer.kChunk << ")";
    os << "\n";
  }
  os << "Weights:\n";
  for (const auto &[name, bytes] : weightBytes_)
    os << "  " << llvm::left_justify(name, 6) << "  "
       << llvm::right_justify(std::to_string(bytes), 10) << " bytes\n";
  os << "  total   "
     << llvm::right_justify(std::to_string(totalWeightBytes()), 10)
     << " bytes, " << llvm::format("%.1f%%", 100.0 * weightRatio())
     << " of an all-f32 build (" << f32Bytes_ << " bytes)\n";
  if (memoryPlans_.empty())
    return;
  // The workspace against what one allocation per buffer would take and
  // against the liveness lower bound (the most bytes live at once).
  os << "Memory (one workspace per network, planned at compile time):\n";
  for (const auto &[network, plan] : memoryPlans_) {
    os << "  @" << network << "  workspace " << plan.workspace
       << " bytes; intermediates " << plan.intermediates << " bytes; peak live "
       << plan.peak << " bytes";
    if (plan.peak > 0)
      os << llvm::format(" (workspace %.2fx peak)",
                         double(plan.workspace) / double(plan.peak));
    os << "\n";
  }
}
