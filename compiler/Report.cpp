//===- Report.cpp - the precision report of a compilation -----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Report.h"
#include "compiler/ModelLoader.h"
#include "dialect/MixAttrNames.h"
#include "passes/Int8Bounds.h"
#include "passes/NetworkSymbols.h"
#include "passes/Resolve.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"

#include <set>

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

/// The precision a layer computes in, as the code table groups it: int8
/// for quantized layers, else the activations' precision.
std::string computePrecision(const PrecisionReport::Layer &layer) {
  std::string activations;
  for (const PrecisionReport::Property &p : layer.properties) {
    if (StringRef(p.precision).starts_with("int8"))
      return "int8";
    if (p.name == "activations")
      activations = p.precision;
  }
  return activations.empty() ? "other" : activations;
}

} // namespace

std::string mix::getScopeLabel(Operation *scope) {
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

namespace {

/// What `v` is bound to outside the blocks that bind it: a block argument
/// is followed to the block's input, outwards, up to an op's result or a
/// network argument.
Value throughBindings(Value v) {
  while (auto arg = dyn_cast<BlockArgument>(v)) {
    auto block = dyn_cast_or_null<BlockOp>(arg.getOwner()->getParentOp());
    if (!block)
      break;
    v = block.getInputs()[arg.getArgNumber()];
  }
  return v;
}

/// Whether `v` is a mix.weight (inline or external), directly or through the
/// bindings of enclosing blocks.
bool isWeight(Value v) {
  return isa_and_nonnull<WeightOp>(throughBindings(v).getDefiningOp());
}

/// The label of the scope that directly contains `op`.
std::string scopeName(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<NetworkOp, BlockOp>(p))
      return getScopeLabel(p);
  return "module";
}
} // namespace

LogicalResult PrecisionReport::recordModel(ModuleOp module,
                                           PrecisionAnalysis *precisions) {
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
    FailureOr<LayerResolution> r =
        precisions ? precisions->resolve(layerOp) : resolveLayer(layerOp);
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
      std::string name = getScopeLabel(op);
      if (!index.count(name)) {
        std::string precision;
        if (auto network = dyn_cast<NetworkOp>(op))
          precision = network.getPrecision().str();
        else if (PrecisionAttr own = cast<BlockOp>(op).getPrecisionAttr())
          precision = own.str();
        index[name] = scopes_.size();
        scopes_.push_back({name, 0, precision});
      }
      return;
    }
    // A cast of a weight is done at compile time (mix-insert-casts folds
    // those of inline weights; mix-lint's copy keeps those of external
    // ones): not a cast between layers.
    // A cast of integers (an ONNX Cast of an int64 mask, ...) converts
    // data, not a precision: not counted either.
    if (isa<CastOp>(op) && !isWeight(op->getOperand(0)) &&
        !isa<IntegerType>(getElementTypeOrSelf(op->getOperand(0).getType()))) {
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
  // The batch_norms mix-fold-batch-norm folded, by location.
  llvm::StringMap<std::string> folded;
  module.walk([&](Conv2DOp conv) {
    if (auto norm = conv->getAttrOfType<LocationAttr>(attr::kFoldedBatchNorm))
      folded[formatLocation(norm)] = formatLocation(conv.getLoc());
  });
  llvm::StringMap<std::string> pathAt;
  llvm::StringMap<size_t> layerAt;
  for (size_t i = 0; i < layers_.size(); ++i) {
    pathAt[layers_[i].location] = layers_[i].path;
    layerAt.try_emplace(layers_[i].location, i);
  }
  // The casts on each layer's inputs (a cast shared by several consumers
  // counts at each; a layer reading one cast twice lists it once).
  for (Layer &layer : layers_)
    layer.castsIn.clear();
  module.walk([&](CastOp cast) {
    if (isWeight(cast.getInput()) ||
        isa<IntegerType>(getElementTypeOrSelf(cast.getInput().getType())))
      return;
    std::string from =
        elementName(getElementTypeOrSelf(cast.getInput().getType()));
    std::string to = elementName(getElementTypeOrSelf(cast.getType()));
    std::string producer;
    if (Operation *def = throughBindings(cast.getInput()).getDefiningOp();
        def && isa<LayerOpInterface>(def))
      producer = getLayerPath(def);
    llvm::SmallPtrSet<Operation *, 4> seen;
    for (Operation *user : cast->getUsers()) {
      if (!isa<LayerOpInterface>(user) || !seen.insert(user).second)
        continue;
      if (auto it = layerAt.find(formatLocation(user->getLoc()));
          it != layerAt.end())
        layers_[it->second].castsIn.push_back({from, to, producer});
    }
  });
  for (Layer &layer : layers_) {
    if (auto it = chunks.find(layer.location); it != chunks.end())
      layer.kChunk = it->second;
    if (auto it = folded.find(layer.location);
        it != folded.end() && layer.kind == "batch_norm")
      layer.foldedInto = pathAt.lookup(it->second);
  }
}

void PrecisionReport::recordQuantized(ModuleOp module) {
  weightBytes_.clear();
  llvm::StringMap<size_t> layerAt;
  for (size_t i = 0; i < layers_.size(); ++i) {
    layers_[i].weightBytes = 0;
    layerAt.try_emplace(layers_[i].location, i);
  }
  module.walk([&](WeightOp w) {
    auto type = cast<ShapedType>(w.getType());
    weightBytes_[elementName(type.getElementType())] += bytesOf(type);
    // Per layer: the layers (by source location, which quantized layers
    // keep) that read the constant.
    llvm::SmallDenseSet<size_t, 4> readers;
    for (Operation *user : w->getUsers())
      if (auto it = layerAt.find(formatLocation(user->getLoc()));
          it != layerAt.end() && readers.insert(it->second).second)
        *layers_[it->second].weightBytes += bytesOf(type);
  });
  module.walk([&](QuantizeOp q) {
    auto it = layerAt.find(formatLocation(q->getLoc()));
    if (it == layerAt.end())
      return;
    Layer &layer = layers_[it->second];
    FloatAttr scale = q.getScaleAttr();
    if (!scale) {
      ++layer.dynamicScales;
      return;
    }
    Layer::StaticScale s;
    s.scale = scale.getValueAsDouble();
    s.zeroPoint = q.getZeroPointAttr() ? q.getZeroPointAttr().getInt() : 0;
    bool symmetric = q.getScheme() == QuantScheme::symmetric;
    s.min = (symmetric ? -127.0 : -128.0 - double(s.zeroPoint)) * s.scale;
    s.max = (symmetric ? 127.0 : 127.0 - double(s.zeroPoint)) * s.scale;
    layer.staticScales.push_back(s);
  });
}

void PrecisionReport::recordCode(
    const ObjectCode &code,
    const std::map<std::string, std::vector<std::string>> &layerCalls,
    const std::string &target) {
  hasCode_ = true;
  codeTarget_ = target;
  textBytes_ = code.textBytes;
  codeFunctions_.clear();
  codeGroups_.clear();
  for (Layer &layer : layers_)
    layer.codeFunctions.clear();
  std::map<std::string, std::vector<size_t>> layersAt;
  for (size_t i = 0; i < layers_.size(); ++i)
    layersAt[layers_[i].location].push_back(i);

  int64_t functionBytes = 0;
  for (const auto &[name, bytes] : code.functionBytes) {
    CodeFunction function{name, bytes, "other", {}};
    StringRef ref(name);
    if (ref.starts_with(symbols::kLayerPrefix)) {
      if (auto calls = layerCalls.find(name); calls != layerCalls.end())
        for (const std::string &location : calls->second)
          if (auto at = layersAt.find(location); at != layersAt.end())
            llvm::append_range(function.layers, at->second);
      // The precision its layers compute in ("mixed" if they differ, which
      // identical code makes unlikely).
      for (size_t i : function.layers) {
        std::string precision = computePrecision(layers_[i]);
        function.group =
            function.group == "other" || function.group == precision ? precision
                                                                     : "mixed";
      }
    } else if (ref.starts_with(symbols::kNetworkPrefix) ||
               ref.starts_with(symbols::kConvenienceEntryPrefix) ||
               ref.starts_with(symbols::kCInterfacePrefix)) {
      function.group = "networks";
    }
    CodeGroup &group = codeGroups_[function.group];
    group.bytes += bytes;
    ++group.functions;
    for (size_t i : function.layers)
      layers_[i].codeFunctions.push_back(codeFunctions_.size());
    functionBytes += bytes;
    codeFunctions_.push_back(std::move(function));
  }
  // Layers per group: each layer once, in the group of its first function.
  for (const Layer &layer : layers_)
    if (!layer.codeFunctions.empty())
      ++codeGroups_[codeFunctions_[layer.codeFunctions.front()].group].layers;
  alignmentBytes_ = textBytes_ - functionBytes;
}

int64_t PrecisionReport::layerCodeBytes(const Layer &layer) const {
  int64_t bytes = 0;
  for (size_t i : layer.codeFunctions)
    bytes += codeFunctions_[i].bytes;
  return bytes;
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
    if (!layer.staticScales.empty() || layer.dynamicScales) {
      llvm::json::Array scales;
      for (const Layer::StaticScale &q : layer.staticScales)
        scales.push_back(llvm::json::Object{{"scale", q.scale},
                                            {"zero_point", q.zeroPoint},
                                            {"min", q.min},
                                            {"max", q.max}});
      entry["int8_activations"] =
          llvm::json::Object{{"static", std::move(scales)},
                             {"dynamic_per_call", layer.dynamicScales}};
    }
    if (layer.foldedInto)
      entry["folded_into"] = *layer.foldedInto;
    if (!layer.castsIn.empty()) {
      llvm::json::Array casts;
      for (const Layer::CastIn &c : layer.castsIn) {
        llvm::json::Object cast{{"from", c.from}, {"to", c.to}};
        if (!c.producer.empty())
          cast["producer"] = c.producer;
        casts.push_back(std::move(cast));
      }
      entry["casts_in"] = std::move(casts);
    }
    if (layer.weightBytes)
      entry["weight_bytes"] = *layer.weightBytes;
    if (hasCode_) {
      llvm::json::Array functions;
      for (size_t i : layer.codeFunctions)
        functions.push_back(codeFunctions_[i].name);
      entry["code"] = llvm::json::Object{{"bytes", layerCodeBytes(layer)},
                                         {"functions", std::move(functions)}};
    }
    layers.push_back(std::move(entry));
  }
  llvm::json::Array scopes;
  for (const Scope &s : scopes_) {
    llvm::json::Object scope{{"scope", s.name}, {"casts", s.casts}};
    if (!s.precision.empty())
      scope["precision"] = s.precision;
    scopes.push_back(std::move(scope));
  }
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
  if (hasCode_) {
    llvm::json::Object groups;
    for (const auto &[name, group] : codeGroups_)
      groups[name] = llvm::json::Object{{"bytes", group.bytes},
                                        {"functions", group.functions},
                                        {"layers", group.layers}};
    llvm::json::Array functions;
    for (const CodeFunction &function : codeFunctions_) {
      llvm::json::Array paths;
      for (size_t i : function.layers)
        paths.push_back(layers_[i].path);
      functions.push_back(llvm::json::Object{{"name", function.name},
                                             {"bytes", function.bytes},
                                             {"group", function.group},
                                             {"layers", std::move(paths)}});
    }
    result["code"] = llvm::json::Object{{"target", codeTarget_},
                                        {"text_bytes", textBytes_},
                                        {"by_group", std::move(groups)},
                                        {"alignment_bytes", alignmentBytes_},
                                        {"functions", std::move(functions)}};
  }
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

void PrecisionReport::printCode(llvm::raw_ostream &os) const {
  if (!hasCode_)
    return;
  // Code and weights side by side per precision (weights by stored type),
  // then the code of no layer; the rows add up to the object's text.
  os << "Code (" << codeTarget_ << "):\n";
  os << "  " << llvm::left_justify("", 10) << llvm::right_justify("code", 10)
     << llvm::right_justify("functions", 11) << llvm::right_justify("layers", 8)
     << llvm::right_justify("weights", 11) << "\n";
  std::set<std::string> rows;
  for (const auto &[name, group] : codeGroups_)
    if (name != "networks" && name != "other")
      rows.insert(name);
  for (const auto &[name, bytes] : weightBytes_)
    rows.insert(name);
  // The text itself, right-justified (a FormattedString would refer to a
  // temporary string that is gone when it is printed).
  auto number = [](std::optional<int64_t> n, unsigned width) {
    std::string text = n ? std::to_string(*n) : "-";
    return std::string(width > text.size() ? width - text.size() : 0, ' ') +
           text;
  };
  auto row = [&](StringRef name, std::optional<int64_t> code,
                 std::optional<int64_t> functions,
                 std::optional<int64_t> layers,
                 std::optional<int64_t> weights) {
    os << "  " << llvm::left_justify(name, 10) << number(code, 10)
       << number(functions, 11) << number(layers, 8) << number(weights, 11)
       << "\n";
  };
  for (const std::string &name : rows) {
    auto group = codeGroups_.find(name);
    auto weights = weightBytes_.find(name);
    bool hasGroup = group != codeGroups_.end();
    std::optional<int64_t> none;
    row(name, hasGroup ? group->second.bytes : none,
        hasGroup ? group->second.functions : none,
        hasGroup ? group->second.layers : none,
        weights != weightBytes_.end() ? weights->second : none);
  }
  for (StringRef name : {"networks", "other"}) {
    auto group = codeGroups_.find(name.str());
    row(name, group != codeGroups_.end() ? group->second.bytes : 0,
        group != codeGroups_.end() ? group->second.functions : 0, std::nullopt,
        std::nullopt);
  }
  row("alignment", alignmentBytes_, std::nullopt, std::nullopt, std::nullopt);
  row("total", textBytes_, codeFunctions_.size(), std::nullopt,
      totalWeightBytes());
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
    if (!hasCode_)
      continue;
    os << "    " << llvm::left_justify("code", 12) << "  "
       << layerCodeBytes(layer) << " bytes";
    const char *separator = ": ";
    for (size_t i : layer.codeFunctions) {
      const CodeFunction &function = codeFunctions_[i];
      os << separator << function.name;
      separator = ", ";
      if (function.layers.size() > 1)
        os << " (shared by " << function.layers.size() << " layers)";
    }
    os << "\n";
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
  any = false;
  for (const Layer &layer : layers_) {
    if (layer.staticScales.empty() && !layer.dynamicScales)
      continue;
    if (!any)
      os << "int8 activations (static: calibrated; dynamic: computed per "
            "call):\n";
    any = true;
    os << "  " << llvm::left_justify(layer.path, width) << "  ";
    for (const Layer::StaticScale &q : layer.staticScales)
      os << llvm::format("static scale %.6g", q.scale)
         << (q.zeroPoint ? " zero point " + std::to_string(q.zeroPoint)
                         : std::string())
         << llvm::format(" (range [%.6g, %.6g]); ", q.min, q.max);
    os << layer.dynamicScales << " dynamic\n";
  }
  any = false;
  for (const Layer &layer : layers_) {
    if (!layer.foldedInto)
      continue;
    if (!any)
      os << "Batch norms folded into conv2d weights:\n";
    any = true;
    os << "  " << llvm::left_justify(layer.path, width) << "  into "
       << *layer.foldedInto << "\n";
  }
  os << "Weights:\n";
  for (const auto &[name, bytes] : weightBytes_)
    os << "  " << llvm::left_justify(name, 6) << "  "
       << llvm::right_justify(std::to_string(bytes), 10) << " bytes\n";
  os << "  total   "
     << llvm::right_justify(std::to_string(totalWeightBytes()), 10)
     << " bytes, " << llvm::format("%.1f%%", 100.0 * weightRatio())
     << " of an all-f32 build (" << f32Bytes_ << " bytes)\n";
  printCode(os);
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
