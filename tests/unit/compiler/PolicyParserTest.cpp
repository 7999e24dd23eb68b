//===- PolicyParserTest.cpp - policy JSON parsing -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/ModelLoader.h"
#include "dialect/MixOps.h"
#include "passes/Policy.h"
#include "llvm/ADT/STLExtras.h"

#include <catch2/catch.hpp>

using namespace mix;

namespace {
/// Parses `json`, requiring success.
Policy parseOk(llvm::StringRef json) {
  llvm::Expected<Policy> policy = parsePolicy(json, "p.json");
  if (!policy) {
    std::string message = llvm::toString(policy.takeError());
    FAIL("unexpected policy error: " << message);
  }
  return std::move(*policy);
}

/// Parses `json`, requiring failure, and returns the message.
std::string parseError(llvm::StringRef json) {
  llvm::Expected<Policy> policy = parsePolicy(json, "p.json");
  if (policy)
    FAIL("policy unexpectedly accepted: " << json.str());
  return llvm::toString(policy.takeError());
}
} // namespace

TEST_CASE("the default policy enables every rule at its documented severity",
          "[policy]") {
  Policy p = Policy::getDefault();
  CHECK(p.getSeverity(Rule::SensitiveOpPrecision) == Severity::error);
  CHECK(p.getSeverity(Rule::Int8NonGemmLayer) == Severity::error);
  CHECK(p.getSeverity(Rule::AccumulatorPrecision) == Severity::error);
  CHECK(p.getSeverity(Rule::ReducedPrecisionReduction) == Severity::warning);
  CHECK(p.getSeverity(Rule::RedundantOverride) == Severity::warning);
  CHECK(p.getSeverity(Rule::OpPrecisionList) == Severity::error);
  CHECK(p.getSeverity(Rule::BlockPrecisionList) == Severity::error);
  CHECK(p.sensitiveMinimum == PrecisionKind::f32);
  CHECK(p.reducedPrecisions == std::vector<PrecisionKind>{PrecisionKind::f16});
  CHECK(p.ops.empty());
  CHECK(p.blocks.empty());
}

TEST_CASE("an empty object is the default policy", "[policy]") {
  Policy p = parseOk("{}");
  Policy d = Policy::getDefault();
  CHECK(p.severity == d.severity);
}

TEST_CASE("rule names round-trip", "[policy]") {
  for (unsigned i = 0; i < kNumRules; ++i) {
    Rule rule = static_cast<Rule>(i);
    INFO(getRuleName(rule).str());
    REQUIRE(getRuleByName(getRuleName(rule)) == rule);
    CHECK(!getRuleDescription(rule).empty());
  }
  CHECK(!getRuleByName("no-such-rule"));
}

TEST_CASE("severities are set by string or by object", "[policy]") {
  Policy p = parseOk(R"({
    "version": 1,
    "rules": {
      "redundant-override": "error",
      "reduced-precision-reduction": {"severity": "off"},
      "sensitive-op-precision": {"minimum": "f64"}
    }
  })");
  CHECK(p.getSeverity(Rule::RedundantOverride) == Severity::error);
  CHECK(p.getSeverity(Rule::ReducedPrecisionReduction) == Severity::off);
  // An object without a severity keeps the default severity.
  CHECK(p.getSeverity(Rule::SensitiveOpPrecision) == Severity::error);
  CHECK(p.sensitiveMinimum == PrecisionKind::f64);
}

TEST_CASE("rule options", "[policy]") {
  Policy p = parseOk(R"({"rules": {"reduced-precision-reduction":
      {"severity": "error", "precisions": ["f16", "bf16"]}}})");
  CHECK(p.getSeverity(Rule::ReducedPrecisionReduction) == Severity::error);
  CHECK(p.reducedPrecisions ==
        std::vector<PrecisionKind>{PrecisionKind::f16, PrecisionKind::bf16});
}

TEST_CASE("extends none turns every rule off but keeps the lists", "[policy]") {
  Policy p = parseOk(
      R"({"extends": "none", "rules": {"int8-non-gemm-layer": "warning"}})");
  CHECK(p.getSeverity(Rule::SensitiveOpPrecision) == Severity::off);
  CHECK(p.getSeverity(Rule::RedundantOverride) == Severity::off);
  CHECK(p.getSeverity(Rule::Int8NonGemmLayer) == Severity::warning);
  CHECK(p.getSeverity(Rule::OpPrecisionList) == Severity::error);
  CHECK(p.getSeverity(Rule::BlockPrecisionList) == Severity::error);
}

TEST_CASE("allow and deny lists per op kind and block", "[policy]") {
  Policy p = parseOk(R"({
    "ops": {
      "softmax": {"allow": ["f32", "f64"]},
      "conv2d": {"deny": ["f64"], "properties": ["weights"]}
    },
    "blocks": {"stage1": {"deny": ["int8", "bf16"]}}
  })");
  REQUIRE(p.ops.count("softmax"));
  const PrecisionList &softmax = p.ops["softmax"];
  CHECK(softmax.permits(PrecisionKind::f32));
  CHECK(softmax.permits(PrecisionKind::f64));
  CHECK_FALSE(softmax.permits(PrecisionKind::f16));
  CHECK(softmax.properties.size() == 3); // weights, activations, output

  const PrecisionList &conv = p.ops["conv2d"];
  CHECK_FALSE(conv.permits(PrecisionKind::f64));
  CHECK(conv.permits(PrecisionKind::int8));
  CHECK(conv.properties ==
        std::vector<PrecisionProperty>{PrecisionProperty::weights});

  const PrecisionList &stage1 = p.blocks["stage1"];
  CHECK_FALSE(stage1.permits(PrecisionKind::int8));
  CHECK_FALSE(stage1.permits(PrecisionKind::bf16));
  CHECK(stage1.permits(PrecisionKind::f16));
}

TEST_CASE("deny wins over allow", "[policy]") {
  PrecisionList list;
  list.allow = {PrecisionKind::f16, PrecisionKind::f32};
  list.deny = {PrecisionKind::f16};
  CHECK_FALSE(list.permits(PrecisionKind::f16));
  CHECK(list.permits(PrecisionKind::f32));
  CHECK_FALSE(list.permits(PrecisionKind::bf16));
}

TEST_CASE("syntax errors name the line and column", "[policy][errors]") {
  CHECK(parseError("{\n  \"rules\": {,}\n}") ==
        "p.json:2:13: invalid JSON: Expected object key");
  CHECK(parseError("") == "p.json:1:1: invalid JSON: Unexpected EOF");
}

TEST_CASE("semantic errors name the JSON path", "[policy][errors]") {
  CHECK(parseError("[]") == "p.json: $: expected an object");
  CHECK(parseError(R"({"rulez": {}})") ==
        "p.json: $: unknown key 'rulez' (expected one of: version, extends, "
        "rules, ops, blocks)");
  CHECK(parseError(R"({"version": 2})") ==
        "p.json: $.version: unsupported policy version (expected 1)");
  CHECK(parseError(R"({"extends": "strict"})") ==
        "p.json: $.extends: expected \"default\" or \"none\"");
  CHECK(parseError(R"({"rules": {"no-such-rule": "error"}})") ==
        "p.json: $.rules[\"no-such-rule\"]: unknown rule 'no-such-rule' "
        "(known rules: sensitive-op-precision, int8-non-gemm-layer, "
        "accumulator-precision, reduced-precision-reduction, "
        "redundant-override, op-precision-list, block-precision-list, "
        "recurrent-state-precision, gradient-precision)");
  CHECK(parseError(R"({"rules": {"redundant-override": "fatal"}})") ==
        "p.json: $.rules[\"redundant-override\"]: expected a severity: "
        "\"error\", \"warning\" or \"off\"");
  CHECK(
      parseError(R"({"rules": {"redundant-override": {"minimum": "f32"}}})") ==
      "p.json: $.rules[\"redundant-override\"]: unknown key 'minimum' "
      "(expected one of: severity)");
  CHECK(parseError(
            R"({"rules": {"sensitive-op-precision": {"minimum": "f16"}}})") ==
        "p.json: $.rules[\"sensitive-op-precision\"].minimum: expected "
        "\"f32\" or \"f64\"");
  CHECK(parseError(R"({"ops": {"convolution": {}}})") ==
        "p.json: $.ops[\"convolution\"]: unknown op kind 'convolution' "
        "(expected a mix layer such as conv2d or softmax)");
  CHECK(parseError(R"({"ops": {"conv2d": {"allow": ["fp16"]}}})") ==
        "p.json: $.ops[\"conv2d\"].allow[0]: unknown precision 'fp16' "
        "(expected f64, f32, f16, bf16, int8 or i32)");
  CHECK(parseError(R"({"ops": {"conv2d": {"allow": []}}})") ==
        "p.json: $.ops[\"conv2d\"].allow: an empty allow list would reject "
        "everything; omit it instead");
  CHECK(parseError(R"({"ops": {"conv2d": {"properties": ["bias"]}}})") ==
        "p.json: $.ops[\"conv2d\"].properties[0]: expected \"weights\", "
        "\"activations\", \"accumulator\" or \"output\"");
  CHECK(parseError(R"({"blocks": {"@stage1": {}}})") ==
        "p.json: $.blocks[\"@stage1\"]: block names are written without '@' "
        "and cannot be empty");
}

TEST_CASE("a missing policy file is an error naming it", "[policy][errors]") {
  llvm::Expected<Policy> p = loadPolicyFile("/nonexistent/policy.json");
  REQUIRE_FALSE(static_cast<bool>(p));
  CHECK(llvm::toString(p.takeError()) ==
        "cannot read policy file '/nonexistent/policy.json': No such file or "
        "directory");
}

TEST_CASE("every layer op of the dialect is a kind policies can name",
          "[policy]") {
  // The `ops` lists of a policy are checked against getLayerKinds(): a layer
  // op missing there could not be allowed or denied by name.
  mlir::MLIRContext context;
  mix::loadMixDialects(context);
  int layers = 0;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "mix" ||
        !name.hasInterface<mix::LayerOpInterface>())
      continue;
    ++layers;
    INFO(name.getStringRef().str());
    CHECK(llvm::is_contained(mix::getLayerKinds(), name.stripDialect()));
  }
  CHECK(layers == int(mix::getLayerKinds().size()));
}
