//===- Policy.cpp - precision policies ------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/Policy.h"
#include "io/Common.h"
#include "support/InputLimits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

using namespace mix;
using llvm::SmallVector;
using llvm::StringRef;
namespace json = llvm::json;

//===----------------------------------------------------------------------===//
// Rule table
//===----------------------------------------------------------------------===//

namespace {
struct RuleInfo {
  Rule rule;
  StringRef name;
  Severity defaultSeverity;
  StringRef description;
};
} // namespace

static const RuleInfo kRules[kNumRules] = {
    {Rule::SensitiveOpPrecision, "sensitive-op-precision", Severity::error,
     "Normalization, softmax and loss layers compute (activations and "
     "accumulator) in at least f32."},
    {Rule::Int8NonGemmLayer, "int8-non-gemm-layer", Severity::error,
     "int8 is only used by GEMM-like layers (dense, matmul, conv2d, "
     "attention, lstm, gru)."},
    {Rule::AccumulatorPrecision, "accumulator-precision", Severity::error,
     "Float arithmetic accumulates in at least f32; int8 x int8 arithmetic "
     "accumulates in exactly i32."},
    {Rule::ReducedPrecisionReduction, "reduced-precision-reduction",
     Severity::warning,
     "Reductions (at accumulator precision) and exp (at activations "
     "precision) in a reduced format such as f16."},
    {Rule::RedundantOverride, "redundant-override", Severity::warning,
     "A block, layer or property override equal to what it would inherit "
     "anyway."},
    {Rule::OpPrecisionList, "op-precision-list", Severity::error,
     "Resolved precisions allowed or denied per op kind by the policy."},
    {Rule::BlockPrecisionList, "block-precision-list", Severity::error,
     "Resolved precisions allowed or denied per block name by the policy."},
    {Rule::RecurrentStatePrecision, "recurrent-state-precision",
     Severity::warning,
     "Recurrent layers (lstm, gru) carry their states in at least f32."},
    {Rule::GradientPrecision, "gradient-precision", Severity::error,
     "The weight gradients of a gradient network (outputs named grad.*) are "
     "returned in at least f32."},
};

StringRef mix::getRuleName(Rule rule) {
  return kRules[static_cast<unsigned>(rule)].name;
}

StringRef mix::getRuleDescription(Rule rule) {
  return kRules[static_cast<unsigned>(rule)].description;
}

std::optional<Rule> mix::getRuleByName(StringRef name) {
  for (const RuleInfo &info : kRules)
    if (info.name == name)
      return info.rule;
  return std::nullopt;
}

StringRef mix::getSeverityName(Severity severity) {
  switch (severity) {
  case Severity::off:
    return "off";
  case Severity::warning:
    return "warning";
  case Severity::error:
    return "error";
  }
  llvm_unreachable("unknown severity");
}

llvm::ArrayRef<StringRef> mix::getLayerKinds() {
  static const StringRef kinds[] = {"dense",
                                    "matmul",
                                    "conv2d",
                                    "batch_norm",
                                    "layer_norm",
                                    "softmax",
                                    "log_softmax",
                                    "instance_norm",
                                    "group_norm",
                                    "relu",
                                    "gelu",
                                    "add",
                                    "mul",
                                    "sigmoid",
                                    "tanh",
                                    "hard_sigmoid",
                                    "hard_swish",
                                    "silu",
                                    "leaky_relu",
                                    "elu",
                                    "clip",
                                    "exp",
                                    "log",
                                    "sqrt",
                                    "rsqrt",
                                    "abs",
                                    "neg",
                                    "erf",
                                    "reciprocal",
                                    "floor",
                                    "ceil",
                                    "round",
                                    "sign",
                                    "sin",
                                    "cos",
                                    "tan",
                                    "asin",
                                    "acos",
                                    "atan",
                                    "sinh",
                                    "cosh",
                                    "asinh",
                                    "acosh",
                                    "atanh",
                                    "sub",
                                    "div",
                                    "pow",
                                    "maximum",
                                    "minimum",
                                    "glu",
                                    "lstm",
                                    "gru",
                                    "transpose",
                                    "concat",
                                    "slice",
                                    "pad",
                                    "reduce_sum",
                                    "reduce_mean",
                                    "reduce_l2",
                                    "reduce_prod",
                                    "reduce_max",
                                    "reduce_min",
                                    "argmax",
                                    "argmin",
                                    "avg_pool2d",
                                    "conv_transpose2d",
                                    "resize",
                                    "gather",
                                    "expand",
                                    "compare",
                                    "logical",
                                    "where",
                                    "embedding",
                                    "global_avg_pool",
                                    "max_pool2d",
                                    "reshape",
                                    "flatten",
                                    "attention",
                                    "cross_entropy_loss",
                                    "mse_loss"};
  return kinds;
}

bool PrecisionList::permits(PrecisionKind kind) const {
  if (llvm::is_contained(deny, kind))
    return false;
  return allow.empty() || llvm::is_contained(allow, kind);
}

Policy Policy::getDefault() {
  Policy policy;
  for (const RuleInfo &info : kRules)
    policy.setSeverity(info.rule, info.defaultSeverity);
  return policy;
}

//===----------------------------------------------------------------------===//
// JSON parsing
//===----------------------------------------------------------------------===//

namespace {
/// Parses the semantic layer of a policy document, reporting the first
/// problem with its JSON path.
class PolicyParser {
public:
  explicit PolicyParser(StringRef sourceName) : sourceName(sourceName) {}

  llvm::Expected<Policy> parse(const json::Value &root);

private:
  llvm::Error error(const std::string &path, const llvm::Twine &message) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        (sourceName + ": " + path + ": " + message).str());
  }

  llvm::Expected<const json::Object *> object(const json::Value &v,
                                              const std::string &path) {
    if (const json::Object *o = v.getAsObject())
      return o;
    return error(path, "expected an object");
  }

  /// Rejects keys of `o` not in `allowed`.
  llvm::Error onlyKeys(const json::Object &o, const std::string &path,
                       llvm::ArrayRef<StringRef> allowed) {
    for (const auto &kv : o) {
      StringRef key = kv.first;
      if (!llvm::is_contained(allowed, key))
        return error(path, "unknown key '" + key + "' (expected one of: " +
                               llvm::join(allowed, ", ") + ")");
    }
    return llvm::Error::success();
  }

  llvm::Expected<PrecisionKind> precision(const json::Value &v,
                                          const std::string &path) {
    std::optional<StringRef> s = v.getAsString();
    if (!s)
      return error(path, "expected a precision name string");
    std::optional<PrecisionKind> kind = symbolizePrecisionKind(*s);
    if (!kind)
      return error(path, "unknown precision '" + *s +
                             "' (expected f64, f32, f16, bf16, int8 or i32)");
    return *kind;
  }

  llvm::Expected<std::vector<PrecisionKind>>
  precisionArray(const json::Value &v, const std::string &path) {
    const json::Array *a = v.getAsArray();
    if (!a)
      return error(path, "expected an array of precision names");
    std::vector<PrecisionKind> result;
    for (auto [i, element] : llvm::enumerate(*a)) {
      auto kind = precision(element, path + "[" + std::to_string(i) + "]");
      if (!kind)
        return kind.takeError();
      result.push_back(*kind);
    }
    return result;
  }

  llvm::Expected<Severity> severity(const json::Value &v,
                                    const std::string &path) {
    std::optional<StringRef> s = v.getAsString();
    if (s == "error")
      return Severity::error;
    if (s == "warning")
      return Severity::warning;
    if (s == "off")
      return Severity::off;
    return error(path,
                 "expected a severity: \"error\", \"warning\" or \"off\"");
  }

  llvm::Error rule(Policy &policy, StringRef name, const json::Value &v,
                   const std::string &path);
  llvm::Expected<PrecisionList> list(const json::Value &v,
                                     const std::string &path);

  StringRef sourceName;
};
} // namespace

llvm::Error PolicyParser::rule(Policy &policy, StringRef name,
                               const json::Value &v, const std::string &path) {
  std::optional<Rule> id = getRuleByName(name);
  if (!id) {
    SmallVector<StringRef> names;
    for (const RuleInfo &info : kRules)
      names.push_back(info.name);
    return error(path, "unknown rule '" + name +
                           "' (known rules: " + llvm::join(names, ", ") + ")");
  }
  // A bare severity string, or an object with a severity and options.
  if (v.getAsString()) {
    auto s = severity(v, path);
    if (!s)
      return s.takeError();
    policy.setSeverity(*id, *s);
    return llvm::Error::success();
  }
  auto o = object(v, path);
  if (!o)
    return o.takeError();
  SmallVector<StringRef> keys = {"severity"};
  if (*id == Rule::SensitiveOpPrecision)
    keys.push_back("minimum");
  if (*id == Rule::ReducedPrecisionReduction)
    keys.push_back("precisions");
  if (llvm::Error e = onlyKeys(**o, path, keys))
    return e;
  if (const json::Value *s = (*o)->get("severity")) {
    auto sev = severity(*s, path + ".severity");
    if (!sev)
      return sev.takeError();
    policy.setSeverity(*id, *sev);
  }
  if (const json::Value *m = (*o)->get("minimum")) {
    auto kind = precision(*m, path + ".minimum");
    if (!kind)
      return kind.takeError();
    if (*kind != PrecisionKind::f32 && *kind != PrecisionKind::f64)
      return error(path + ".minimum", "expected \"f32\" or \"f64\"");
    policy.sensitiveMinimum = *kind;
  }
  if (const json::Value *p = (*o)->get("precisions")) {
    auto kinds = precisionArray(*p, path + ".precisions");
    if (!kinds)
      return kinds.takeError();
    policy.reducedPrecisions = std::move(*kinds);
  }
  return llvm::Error::success();
}

llvm::Expected<PrecisionList> PolicyParser::list(const json::Value &v,
                                                 const std::string &path) {
  auto o = object(v, path);
  if (!o)
    return o.takeError();
  if (llvm::Error e = onlyKeys(**o, path, {"allow", "deny", "properties"}))
    return std::move(e);
  PrecisionList result;
  if (const json::Value *a = (*o)->get("allow")) {
    auto kinds = precisionArray(*a, path + ".allow");
    if (!kinds)
      return kinds.takeError();
    if (kinds->empty())
      return error(path + ".allow",
                   "an empty allow list would reject everything; omit it "
                   "instead");
    result.allow = std::move(*kinds);
  }
  if (const json::Value *d = (*o)->get("deny")) {
    auto kinds = precisionArray(*d, path + ".deny");
    if (!kinds)
      return kinds.takeError();
    result.deny = std::move(*kinds);
  }
  if (const json::Value *p = (*o)->get("properties")) {
    const json::Array *a = p->getAsArray();
    if (!a || a->empty())
      return error(path + ".properties",
                   "expected a non-empty array of property names");
    result.properties.clear();
    for (auto [i, element] : llvm::enumerate(*a)) {
      std::optional<StringRef> s = element.getAsString();
      std::optional<PrecisionProperty> prop =
          s ? symbolizePrecisionProperty(*s) : std::nullopt;
      if (!prop)
        return error(path + ".properties[" + std::to_string(i) + "]",
                     "expected \"weights\", \"activations\", \"accumulator\" "
                     "or \"output\"");
      result.properties.push_back(*prop);
    }
  }
  return result;
}

llvm::Expected<Policy> PolicyParser::parse(const json::Value &rootValue) {
  auto root = object(rootValue, "$");
  if (!root)
    return root.takeError();
  if (llvm::Error e = onlyKeys(
          **root, "$", {"version", "extends", "rules", "ops", "blocks"}))
    return std::move(e);

  if (const json::Value *version = (*root)->get("version")) {
    if (version->getAsInteger() != 1)
      return error("$.version", "unsupported policy version (expected 1)");
  }

  Policy policy = Policy::getDefault();
  if (const json::Value *extends = (*root)->get("extends")) {
    std::optional<StringRef> base = extends->getAsString();
    if (base == "none") {
      policy.severity.fill(Severity::off);
      // Lists are still enforced when given, at error severity by default.
      policy.setSeverity(Rule::OpPrecisionList, Severity::error);
      policy.setSeverity(Rule::BlockPrecisionList, Severity::error);
    } else if (base != "default") {
      return error("$.extends", "expected \"default\" or \"none\"");
    }
  }

  if (const json::Value *rules = (*root)->get("rules")) {
    auto o = object(*rules, "$.rules");
    if (!o)
      return o.takeError();
    // Iterate in a stable order so the first error reported is predictable.
    SmallVector<StringRef> names;
    for (const auto &kv : **o)
      names.push_back(kv.first);
    llvm::sort(names);
    for (StringRef name : names)
      if (llvm::Error e = rule(policy, name, *(*o)->get(name),
                               "$.rules[\"" + name.str() + "\"]"))
        return std::move(e);
  }

  if (const json::Value *ops = (*root)->get("ops")) {
    auto o = object(*ops, "$.ops");
    if (!o)
      return o.takeError();
    for (const auto &kv : **o) {
      StringRef kind = kv.first;
      std::string path = "$.ops[\"" + kind.str() + "\"]";
      if (!llvm::is_contained(getLayerKinds(), kind))
        return error(path, "unknown op kind '" + kind +
                               "' (expected a mix "
                               "layer such as "
                               "conv2d or softmax)");
      auto l = list(kv.second, path);
      if (!l)
        return l.takeError();
      policy.ops[kind] = std::move(*l);
    }
  }

  if (const json::Value *blocks = (*root)->get("blocks")) {
    auto o = object(*blocks, "$.blocks");
    if (!o)
      return o.takeError();
    for (const auto &kv : **o) {
      StringRef name = kv.first;
      std::string path = "$.blocks[\"" + name.str() + "\"]";
      if (name.empty() || name.starts_with("@"))
        return error(path, "block names are written without '@' and cannot "
                           "be empty");
      auto l = list(kv.second, path);
      if (!l)
        return l.takeError();
      policy.blocks[name] = std::move(*l);
    }
  }
  return policy;
}

llvm::Expected<Policy> mix::parsePolicy(StringRef text, StringRef sourceName) {
  // The JSON parser recurses: bound the nesting before it runs.
  if (llvm::Error e = checkNestingDepth(text, limits::kMaxJSONNesting,
                                        NestingSyntax::json, sourceName))
    return std::move(e);
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value) {
    // Reformat "[line:col, byte=N]: message" as "source:line:col: ...".
    std::string message = llvm::toString(value.takeError());
    llvm::Regex re("^\\[([0-9]+):([0-9]+), byte=[0-9]+\\]: (.*)$");
    SmallVector<StringRef> m;
    if (re.match(message, &m)) {
      // LLVM counts columns from 1, except at the start of a line (0).
      StringRef column = m[2] == "0" ? "1" : m[2];
      message = (m[1] + ":" + column + ": invalid JSON: " + m[3]).str();
    } else
      message = " invalid JSON: " + message;
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   (sourceName + ":" + message).str());
  }
  // The JSON parser keeps one of two equal keys: a policy saying a thing
  // twice (perhaps two different ways) is an error, as in every reader.
  if (std::optional<std::string> dup = io::detail::findDuplicateKey(text))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        (sourceName + ": the key '" + *dup + "' appears twice in one object")
            .str());
  return PolicyParser(sourceName).parse(*value);
}

llvm::Expected<Policy> mix::loadPolicyFile(StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readInputFile(path, limits::kMaxPolicyBytes, "policy file");
  if (!buffer)
    return buffer.takeError();
  return parsePolicy((*buffer)->getBuffer(), path);
}
